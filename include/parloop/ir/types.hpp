// SPDX-License-Identifier: MIT
// The operations of the kernel IR; its scalar types are core's (core/scalar_type.hpp).
#pragma once

#include <cstdint>
#include <string_view>

#include "parloop/core/scalar_type.hpp"

namespace parloop::ir {

enum class op : std::uint8_t {
  // unary
  neg,
  logical_not,
  // binary
  add,
  sub,
  mul,
  div,
  mod,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
  // math calls
  sqrt,
  fabs,
  exp,
  log,
  pow,
  min,
  max,
  sin,
  cos,
  tan,
  atan2,
  floor,
  ceil,
};

constexpr std::string_view op_name(op o) {
  switch (o) {
    case op::neg: return "-";
    case op::logical_not: return "!";
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
    case op::mod: return "%";
    case op::lt: return "<";
    case op::le: return "<=";
    case op::gt: return ">";
    case op::ge: return ">=";
    case op::eq: return "==";
    case op::ne: return "!=";
    case op::logical_and: return "&&";
    case op::logical_or: return "||";
    case op::sqrt: return "sqrt";
    case op::fabs: return "fabs";
    case op::exp: return "exp";
    case op::log: return "log";
    case op::pow: return "pow";
    case op::min: return "min";
    case op::max: return "max";
    case op::sin: return "sin";
    case op::cos: return "cos";
    case op::tan: return "tan";
    case op::atan2: return "atan2";
    case op::floor: return "floor";
    case op::ceil: return "ceil";
  }
  return "?";
}

}  // namespace parloop::ir
