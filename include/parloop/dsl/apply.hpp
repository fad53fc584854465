// SPDX-License-Identifier: MIT
// What each IR operation computes on plain values: the host backend's semantics, and the
// source of every node's C++ result type.
#pragma once

#include <cmath>
#include <type_traits>

#include "parloop/config.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::dsl {

constexpr bool is_call(ir::op o) { return o >= ir::op::sqrt; }

template <ir::op O, class A>
PARLOOP_INLINE auto apply(A a) {
  using ir::op;
  if constexpr (O == op::neg)
    return -a;
  else if constexpr (O == op::logical_not)
    return !a;
  else if constexpr (O == op::sqrt)
    return std::sqrt(a);
  else if constexpr (O == op::fabs)
    return std::fabs(a);
  else if constexpr (O == op::exp)
    return std::exp(a);
  else if constexpr (O == op::log)
    return std::log(a);
  else if constexpr (O == op::sin)
    return std::sin(a);
  else if constexpr (O == op::cos)
    return std::cos(a);
  else if constexpr (O == op::tan)
    return std::tan(a);
  else if constexpr (O == op::floor)
    return std::floor(a);
  else if constexpr (O == op::ceil)
    return std::ceil(a);
  else
    static_assert(parloop::detail::dependent_false<A>, "parloop: not a one-operand operation");
}

template <ir::op O, class A, class B>
PARLOOP_INLINE auto apply(A a, B b) {
  using ir::op;
  using common = decltype(a + b);
  if constexpr (O == op::add)
    return a + b;
  else if constexpr (O == op::sub)
    return a - b;
  else if constexpr (O == op::mul)
    return a * b;
  else if constexpr (O == op::div)
    return a / b;
  else if constexpr (O == op::mod) {
    static_assert(std::is_integral_v<A> && std::is_integral_v<B>, "parloop: % takes integer operands");
    return a % b;
  } else if constexpr (O == op::lt)
    return a < b;
  else if constexpr (O == op::le)
    return a <= b;
  else if constexpr (O == op::gt)
    return a > b;
  else if constexpr (O == op::ge)
    return a >= b;
  else if constexpr (O == op::eq)
    return a == b;
  else if constexpr (O == op::ne)
    return a != b;
  else if constexpr (O == op::logical_and)
    return a && b;
  else if constexpr (O == op::logical_or)
    return a || b;
  else if constexpr (O == op::min)
    return b < a ? static_cast<common>(b) : static_cast<common>(a);
  else if constexpr (O == op::max)
    return a < b ? static_cast<common>(b) : static_cast<common>(a);
  else if constexpr (O == op::pow)
    return std::pow(a, b);
  else if constexpr (O == op::atan2)
    return std::atan2(a, b);
  else
    static_assert(parloop::detail::dependent_false<A>, "parloop: not a two-operand operation");
}

}  // namespace parloop::dsl
