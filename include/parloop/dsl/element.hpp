// SPDX-License-Identifier: MIT
// One component of one argument, with its access mode's rules; the same class serves the
// host backend (a pointer to the value) and tracing (a place in the IR).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "parloop/core/access.hpp"
#include "parloop/dsl/apply.hpp"
#include "parloop/dsl/expr.hpp"
#include "parloop/dsl/recorder.hpp"
#include "parloop/dsl/rules.hpp"
#include "parloop/error.hpp"

namespace parloop::dsl {

// A value on the host backend.
template <class T>
struct host_place {
  using value_type = T;
  static constexpr origin where = origin::host;

  T* p;

  PARLOOP_INLINE T load() const { return *p; }
  template <class V>
  PARLOOP_INLINE void store(V v) const {
    *p = static_cast<T>(v);
  }
  // `*p op= v` with C++'s conversions, and min/max as `*p = min(*p, v)`.
  template <ir::op O, class V>
  PARLOOP_INLINE void update(V v) const {
    *p = static_cast<T>(apply<O>(*p, v));
  }
  bool same(const host_place& o) const { return p == o.p; }
};

// No slot: the argument is direct, indirect through one fixed slot, or global.
struct no_slot {
  ir::id lower(ir::builder&) const { return ir::no_id; }
};

// A component of a parameter while tracing: the slot (whole-map arguments) and the
// component are nodes, constants or computed.
template <class T, class Slot, class Comp>
struct symbolic_place {
  using value_type = T;
  static constexpr origin where = origin::symbolic;

  ir::id param;
  Slot slot;
  Comp comp;

  ir::id lower_target(ir::builder& b) const {
    const ir::id s = slot.lower(b);
    const ir::id c = comp.lower(b);
    return b.element(param, s, c);
  }
  ir::id lower_read(ir::builder& b) const {
    const ir::id s = slot.lower(b);
    const ir::id c = comp.lower(b);
    return b.read_element(param, s, c);
  }
  bool same(const symbolic_place& o) const {
    ir::builder& b = recorder();
    return lower_target(b) == o.lower_target(b);
  }
};

template <access Mode, class Target, class Value>
struct minmax_update {
  Target target;
  Value value;
};

template <class Place, access Mode, std::size_t Pos>
class element : public expr<element<Place, Mode, Pos>> {
 public:
  using node_type = element;
  using value_type = typename Place::value_type;
  static constexpr origin where = Place::where;
  static constexpr access mode = Mode;

  PARLOOP_INLINE explicit element(Place p) : place_(std::move(p)) {}
  element(const element&) = default;

  // Assignment writes the value; it never rebinds the element to another place.
  PARLOOP_INLINE element& operator=(const element& v) { return assign(v); }
  template <operand V>
  PARLOOP_INLINE element& operator=(const V& v) {
    return assign(v);
  }
  template <access M, class E, class V>
  PARLOOP_INLINE element& operator=(const minmax_update<M, E, V>& u) {
    static_assert(rule::not_read_only<Pos, Mode>, PARLOOP_MSG_READ_ONLY);
    static_assert(rule::not_increment_only<Pos, Mode>, PARLOOP_MSG_INC_UPDATE);
    static_assert(Mode != access::min || (M == access::min && std::is_same_v<E, element>), PARLOOP_MSG_MIN);
    static_assert(Mode != access::max || (M == access::max && std::is_same_v<E, element>), PARLOOP_MSG_MAX);
    static_assert(Mode == access::min || Mode == access::max,
                  "parloop: g = pl::min(g, v) / pl::max(g, v) updates an argument declared pl::MIN / pl::MAX; "
                  "for other arguments pl::min / pl::max of plain values is an expression");
    if constexpr (std::is_same_v<E, element>) {
      if (!place_.same(u.target.place_)) {
        throw trace_error(std::string(Mode == access::min ? "g = pl::min(h, v)" : "g = pl::max(h, v)") +
                          ": a reduction updates one component of argument " + std::to_string(Pos) +
                          ", so g and h must be that same component");
      }
      update<M == access::min ? ir::op::min : ir::op::max>(u.value);
    }
    return *this;
  }

  template <operand V>
  PARLOOP_INLINE element& operator+=(const V& v) {
    check_increment();
    static_assert(rule::not_fraction_into_integer_increment<Pos, Mode, value_type, typename node_t<V>::value_type>,
                  PARLOOP_MSG_INC_FRACTION);
    return update<ir::op::add>(v);
  }
  template <operand V>
  PARLOOP_INLINE element& operator-=(const V& v) {
    check_increment();
    static_assert(rule::not_fraction_into_integer_increment<Pos, Mode, value_type, typename node_t<V>::value_type>,
                  PARLOOP_MSG_INC_FRACTION);
    return update<ir::op::sub>(v);
  }
  template <operand V>
  PARLOOP_INLINE element& operator*=(const V& v) {
    check_assign();
    return update<ir::op::mul>(v);
  }
  template <operand V>
  PARLOOP_INLINE element& operator/=(const V& v) {
    check_assign();
    return update<ir::op::div>(v);
  }

  PARLOOP_INLINE value_type eval() const {
    check_read();
    return place_.load();
  }
  ir::id lower(ir::builder& b) const {
    check_read();
    return place_.lower_read(b);
  }

 private:
  template <class, access, std::size_t>
  friend class element;

  static constexpr void check_read() {
    static_assert(rule::not_increment_only<Pos, Mode>, PARLOOP_MSG_INC_READ);
    static_assert(rule::not_min_reduction<Pos, Mode>, PARLOOP_MSG_MIN);
    static_assert(rule::not_max_reduction<Pos, Mode>, PARLOOP_MSG_MAX);
  }
  static constexpr void check_assign() {
    static_assert(rule::not_read_only<Pos, Mode>, PARLOOP_MSG_READ_ONLY);
    static_assert(rule::not_increment_only<Pos, Mode>, PARLOOP_MSG_INC_UPDATE);
    static_assert(rule::not_min_reduction<Pos, Mode>, PARLOOP_MSG_MIN);
    static_assert(rule::not_max_reduction<Pos, Mode>, PARLOOP_MSG_MAX);
  }
  static constexpr void check_increment() {
    static_assert(rule::not_read_only<Pos, Mode>, PARLOOP_MSG_READ_ONLY);
    static_assert(rule::not_min_reduction<Pos, Mode>, PARLOOP_MSG_MIN);
    static_assert(rule::not_max_reduction<Pos, Mode>, PARLOOP_MSG_MAX);
  }

  template <class V>
  PARLOOP_INLINE element& assign(const V& v) {
    check_assign();
    const auto n = as_node(v);
    static_assert(compatible(where, node_t<V>::where), "parloop: host and traced values cannot meet in one statement");
    if constexpr (where == origin::host) {
      place_.store(n.eval());
    } else {
      ir::builder& b = recorder();
      const ir::id value = n.lower(b);
      b.assign(place_.lower_target(b), value);
    }
    return *this;
  }

  template <ir::op O, class V>
  PARLOOP_INLINE element& update(const V& v) {
    const auto n = as_node(v);
    static_assert(compatible(where, node_t<V>::where), "parloop: host and traced values cannot meet in one statement");
    if constexpr (where == origin::host) {
      place_.template update<O>(n.eval());
    } else {
      ir::builder& b = recorder();
      const ir::id value = n.lower(b);
      b.update(O, place_.lower_target(b), value);
    }
    return *this;
  }

  Place place_;
};

template <class X>
struct element_traits : std::false_type {};
template <class Place, access Mode, std::size_t Pos>
struct element_traits<element<Place, Mode, Pos>> : std::true_type {
  static constexpr access mode = Mode;
};

// Whether X is a component of an argument declared with mode M.
template <class X, access M>
constexpr bool is_reduction_target() {
  if constexpr (node_like<X>) {
    using N = node_t<X>;
    if constexpr (element_traits<N>::value)
      return element_traits<N>::mode == M;
    else
      return false;
  } else {
    return false;
  }
}

}  // namespace parloop::dsl
