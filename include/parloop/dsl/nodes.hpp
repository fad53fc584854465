// SPDX-License-Identifier: MIT
// Expression nodes: operations, select and cast over other nodes.
#pragma once

#include <type_traits>
#include <utility>

#include "parloop/dsl/apply.hpp"
#include "parloop/dsl/expr.hpp"

namespace parloop::dsl {

template <class... N>
constexpr bool joinable() {
  origin o = origin::neutral;
  bool ok = true;
  ((ok = ok && compatible(o, N::where), o = combine(o, N::where)), ...);
  return ok;
}

template <class... N>
constexpr origin joined() {
  static_assert(joinable<N...>(), "parloop: host and traced values cannot meet in one expression");
  origin o = origin::neutral;
  ((o = combine(o, N::where)), ...);
  return o;
}

template <ir::op O, class A>
struct unary : expr<unary<O, A>> {
  using node_type = unary;
  using value_type = decltype(apply<O>(std::declval<typename A::value_type>()));
  static constexpr origin where = A::where;

  A a;

  PARLOOP_INLINE explicit unary(A x) : a(std::move(x)) {}
  PARLOOP_INLINE value_type eval() const { return apply<O>(a.eval()); }
  ir::id lower(ir::builder& b) const {
    const ir::id x = a.lower(b);
    return is_call(O) ? b.call(O, scalar_of<value_type>(), x) : b.unary(O, scalar_of<value_type>(), x);
  }
};

template <ir::op O, class A, class B>
struct binary : expr<binary<O, A, B>> {
  using node_type = binary;
  using value_type = decltype(apply<O>(std::declval<typename A::value_type>(), std::declval<typename B::value_type>()));
  static constexpr origin where = joined<A, B>();

  A a;
  B b;

  PARLOOP_INLINE binary(A x, B y) : a(std::move(x)), b(std::move(y)) {}
  PARLOOP_INLINE value_type eval() const {
    // && and || skip their right operand as in C, so a guard like `i < n && q[i] > 0` holds.
    if constexpr (O == ir::op::logical_and)
      return a.eval() && b.eval();
    else if constexpr (O == ir::op::logical_or)
      return a.eval() || b.eval();
    else
      return apply<O>(a.eval(), b.eval());
  }
  ir::id lower(ir::builder& bld) const {
    const ir::id x = a.lower(bld);
    const ir::id y = b.lower(bld);
    return is_call(O) ? bld.call(O, scalar_of<value_type>(), x, y) : bld.binary(O, scalar_of<value_type>(), x, y);
  }
};

template <class C, class A, class B>
struct select_node : expr<select_node<C, A, B>> {
  using node_type = select_node;
  using value_type = std::common_type_t<typename A::value_type, typename B::value_type>;
  static constexpr origin where = joined<C, A, B>();

  C c;
  A a;
  B b;

  PARLOOP_INLINE select_node(C cond, A x, B y) : c(std::move(cond)), a(std::move(x)), b(std::move(y)) {}
  // Only the chosen operand is evaluated, as with C's ?:.
  PARLOOP_INLINE value_type eval() const {
    return c.eval() ? static_cast<value_type>(a.eval()) : static_cast<value_type>(b.eval());
  }
  ir::id lower(ir::builder& bld) const {
    const ir::id cond = c.lower(bld);
    const ir::id x = a.lower(bld);
    const ir::id y = b.lower(bld);
    return bld.select(scalar_of<value_type>(), cond, x, y);
  }
};

template <class T, class A>
struct cast_node : expr<cast_node<T, A>> {
  using node_type = cast_node;
  using value_type = T;
  static constexpr origin where = A::where;

  A a;

  PARLOOP_INLINE explicit cast_node(A x) : a(std::move(x)) {}
  PARLOOP_INLINE value_type eval() const { return static_cast<T>(a.eval()); }
  ir::id lower(ir::builder& b) const {
    const ir::id x = a.lower(b);
    return b.cast(scalar_of<T>(), x);
  }
};

template <ir::op O, class A>
PARLOOP_INLINE auto make_unary(const A& a) {
  return unary<O, node_t<A>>(as_node(a));
}
template <ir::op O, class A, class B>
PARLOOP_INLINE auto make_binary(const A& a, const B& b) {
  return binary<O, node_t<A>, node_t<B>>(as_node(a), as_node(b));
}

}  // namespace parloop::dsl
