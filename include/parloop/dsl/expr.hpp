// SPDX-License-Identifier: MIT
// The base of every kernel expression node, and how plain C++ values become nodes.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "parloop/config.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::dsl {

// Where a node's values come from: only C++ constants and kernel locals (neutral), host
// data (the host backend evaluates it), or trace proxies (lowered to IR). Host and
// symbolic leaves never meet in one expression.
enum class origin : std::uint8_t { neutral, host, symbolic };

constexpr origin combine(origin a, origin b) { return a == origin::neutral ? b : a; }
constexpr bool compatible(origin a, origin b) { return a == origin::neutral || b == origin::neutral || a == b; }

struct node_base {};

#define PARLOOP_MSG_NOT_A_NUMBER                                                                                   \
  "parloop: a kernel value is not a C++ number (double t = q * 2.0; a pl::for_ body taking int i; std::sqrt(q)): " \
  "keep it a kernel value -- auto t = pl::let(\"t\", q * 2.0); pl::for_(0, n, [&](auto i) { ... }); pl::sqrt(q) "  \
  "or sqrt(q), pl::min, pl::max"

// CRTP base of every node. A node defines value_type (its C++ scalar type), node_type (what
// it is stored as inside a larger expression), where (its origin), eval() (host) and
// lower(builder) (trace).
template <class Derived>
struct expr : node_base {
  // Symbolic values have no truth value while tracing; the condition must go into the IR.
  template <class Bool = void>
  explicit operator bool() const {
    static_assert(parloop::detail::dependent_false<Bool>,
                  "parloop: a kernel value cannot be used as a C++ bool (if, ?:, while, std::min, std::max): "
                  "use pl::select(c, a, b) for a value, pl::if_(c, [&] { ... }) for statements, pl::min / pl::max");
    return false;
  }

  // Nor is it a C++ number: `double t = q * 2.0`, a pl::for_ body taking `int i` or std::sqrt(q)
  // would take one value while tracing and bake it into the kernel. One conversion to double and
  // one template for integers (not for every arithmetic type): std::sqrt(q) then picks
  // sqrt(double) unambiguously and reaches this message instead of an ambiguity.
  operator double() const {
    static_assert(parloop::detail::dependent_false<Derived>, PARLOOP_MSG_NOT_A_NUMBER);
    return 0.0;
  }
  template <std::integral I>
  requires(!std::is_same_v<I, bool>) operator I() const {
    static_assert(parloop::detail::dependent_false<I>, PARLOOP_MSG_NOT_A_NUMBER);
    return 0;
  }

  // A formula is recomputed where it is used; it has no value to update.
  template <class V>
  Derived& operator+=(const V&) {
    return not_a_variable<V>();
  }
  template <class V>
  Derived& operator-=(const V&) {
    return not_a_variable<V>();
  }
  template <class V>
  Derived& operator*=(const V&) {
    return not_a_variable<V>();
  }
  template <class V>
  Derived& operator/=(const V&) {
    return not_a_variable<V>();
  }

 private:
  template <class V>
  Derived& not_a_variable() {
    static_assert(parloop::detail::dependent_false<V>,
                  "parloop: an expression is a formula, not a variable, and cannot be updated: make a local of it, "
                  "auto t = pl::let(\"t\", q * 2.0); t += 1.0;");
    return static_cast<Derived&>(*this);
  }
};

template <class T>
concept node_like = std::derived_from<T, node_base>;

// Anything a kernel expression accepts: a node, or a C++ number.
template <class T>
concept operand = node_like<T> || std::is_arithmetic_v<T>;

template <class T>
struct literal : expr<literal<T>> {
  using node_type = literal;
  using value_type = T;
  static constexpr origin where = origin::neutral;
  static constexpr scalar_type scalar = scalar_of<T>();

  T value;

  PARLOOP_INLINE explicit literal(T v) : value(v) {}
  PARLOOP_INLINE T eval() const { return value; }
  ir::id lower(ir::builder& b) const {
    if constexpr (is_floating(scalar))
      return b.literal_float(scalar, static_cast<double>(value));
    else
      return b.literal_int(scalar, static_cast<std::int64_t>(value));
  }
};

// A C++ number becomes a literal of its promoted type (char and short promote to int, as
// in C++); a node becomes what it is stored as.
template <operand X>
PARLOOP_INLINE auto as_node(const X& x) {
  if constexpr (std::is_same_v<X, bool>)
    return literal<bool>(x);
  else if constexpr (std::is_arithmetic_v<X>)
    return literal<decltype(+x)>(+x);
  else
    return typename X::node_type(x);
}

template <class X>
using node_t = decltype(as_node(std::declval<const X&>()));

template <class X>
using value_t = typename node_t<X>::value_type;

template <class X>
inline constexpr origin origin_of = node_t<X>::where;

}  // namespace parloop::dsl
