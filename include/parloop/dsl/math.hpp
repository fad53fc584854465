// SPDX-License-Identifier: MIT
// Math functions for kernels: on C++ numbers they compute now, on kernel values they build
// nodes; pl::min / pl::max on a MIN / MAX argument make its reduction update.
#pragma once

#include "parloop/core/access.hpp"
#include "parloop/dsl/element.hpp"
#include "parloop/dsl/nodes.hpp"

namespace parloop {

namespace dsl {

template <ir::op O, class A>
PARLOOP_INLINE auto math1(const A& a) {
  if constexpr (std::is_arithmetic_v<A>)
    return apply<O>(a);
  else
    return make_unary<O>(a);
}
template <ir::op O, class A, class B>
PARLOOP_INLINE auto math2(const A& a, const B& b) {
  if constexpr (std::is_arithmetic_v<A> && std::is_arithmetic_v<B>)
    return apply<O>(a, b);
  else
    return make_binary<O>(a, b);
}

// g = pl::min(g, v) on a MIN argument g (either operand order); otherwise the minimum.
template <access M, ir::op O, class A, class B>
PARLOOP_INLINE auto reduce_or_compute(const A& a, const B& b) {
  if constexpr (is_reduction_target<A, M>())
    return minmax_update<M, node_t<A>, node_t<B>>{as_node(a), as_node(b)};
  else if constexpr (is_reduction_target<B, M>())
    return minmax_update<M, node_t<B>, node_t<A>>{as_node(b), as_node(a)};
  else
    return math2<O>(a, b);
}

}  // namespace dsl

template <dsl::operand A>
PARLOOP_INLINE auto sqrt(const A& a) {
  return dsl::math1<ir::op::sqrt>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto fabs(const A& a) {
  return dsl::math1<ir::op::fabs>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto exp(const A& a) {
  return dsl::math1<ir::op::exp>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto log(const A& a) {
  return dsl::math1<ir::op::log>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto sin(const A& a) {
  return dsl::math1<ir::op::sin>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto cos(const A& a) {
  return dsl::math1<ir::op::cos>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto tan(const A& a) {
  return dsl::math1<ir::op::tan>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto floor(const A& a) {
  return dsl::math1<ir::op::floor>(a);
}
template <dsl::operand A>
PARLOOP_INLINE auto ceil(const A& a) {
  return dsl::math1<ir::op::ceil>(a);
}

template <dsl::operand A, dsl::operand B>
PARLOOP_INLINE auto pow(const A& a, const B& b) {
  return dsl::math2<ir::op::pow>(a, b);
}
template <dsl::operand A, dsl::operand B>
PARLOOP_INLINE auto atan2(const A& a, const B& b) {
  return dsl::math2<ir::op::atan2>(a, b);
}
template <dsl::operand A, dsl::operand B>
PARLOOP_INLINE auto min(const A& a, const B& b) {
  return dsl::reduce_or_compute<access::min, ir::op::min>(a, b);
}
template <dsl::operand A, dsl::operand B>
PARLOOP_INLINE auto max(const A& a, const B& b) {
  return dsl::reduce_or_compute<access::max, ir::op::max>(a, b);
}

// Unqualified calls on kernel values find these by argument-dependent lookup (kernel values are
// of namespace dsl), so `sqrt(q)` means pl::sqrt(q) as it would for a C++ number.
namespace dsl {
using parloop::atan2;
using parloop::ceil;
using parloop::cos;
using parloop::exp;
using parloop::fabs;
using parloop::floor;
using parloop::log;
using parloop::max;
using parloop::min;
using parloop::pow;
using parloop::sin;
using parloop::sqrt;
using parloop::tan;
}  // namespace dsl

}  // namespace parloop
