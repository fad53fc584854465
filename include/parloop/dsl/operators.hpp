// SPDX-License-Identifier: MIT
// C++ operators on kernel values: each builds a node (found by argument-dependent lookup).
#pragma once

#include "parloop/dsl/nodes.hpp"

namespace parloop::dsl {

// At least one side is a kernel value; the other may be a C++ number.
template <class A, class B>
concept operand_pair = operand<A> && operand<B> &&(node_like<A> || node_like<B>);

template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator+(const A& a, const B& b) {
  return make_binary<ir::op::add>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator-(const A& a, const B& b) {
  return make_binary<ir::op::sub>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator*(const A& a, const B& b) {
  return make_binary<ir::op::mul>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator/(const A& a, const B& b) {
  return make_binary<ir::op::div>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator%(const A& a, const B& b) {
  return make_binary<ir::op::mod>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator<(const A& a, const B& b) {
  return make_binary<ir::op::lt>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator<=(const A& a, const B& b) {
  return make_binary<ir::op::le>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator>(const A& a, const B& b) {
  return make_binary<ir::op::gt>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator>=(const A& a, const B& b) {
  return make_binary<ir::op::ge>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator==(const A& a, const B& b) {
  return make_binary<ir::op::eq>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator!=(const A& a, const B& b) {
  return make_binary<ir::op::ne>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator&&(const A& a, const B& b) {
  return make_binary<ir::op::logical_and>(a, b);
}
template <class A, class B>
requires operand_pair<A, B> PARLOOP_INLINE auto operator||(const A& a, const B& b) {
  return make_binary<ir::op::logical_or>(a, b);
}

template <node_like A>
PARLOOP_INLINE auto operator-(const A& a) {
  return make_unary<ir::op::neg>(a);
}
template <node_like A>
PARLOOP_INLINE auto operator+(const A& a) {
  return as_node(a);
}
template <node_like A>
PARLOOP_INLINE auto operator!(const A& a) {
  return make_unary<ir::op::logical_not>(a);
}

}  // namespace parloop::dsl
