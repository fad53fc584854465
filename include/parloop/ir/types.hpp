// SPDX-License-Identifier: MIT
// Scalar types and operations of the kernel IR, and the mapping from C++ types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace parloop::ir {

enum class scalar_type : std::uint8_t { boolean, int32, int64, float32, float64 };

constexpr std::string_view type_name(scalar_type t) {
  switch (t) {
    case scalar_type::boolean: return "bool";
    case scalar_type::int32: return "int";
    case scalar_type::int64: return "long";
    case scalar_type::float32: return "float";
    case scalar_type::float64: return "double";
  }
  return "?";
}

// The bytes a value takes in device memory.
constexpr std::size_t size_of(scalar_type t) {
  switch (t) {
    case scalar_type::boolean: return 1;
    case scalar_type::int32:
    case scalar_type::float32: return 4;
    case scalar_type::int64:
    case scalar_type::float64: return 8;
  }
  return 0;
}

constexpr bool is_floating(scalar_type t) { return t == scalar_type::float32 || t == scalar_type::float64; }

// The type C and C++ compute a binary operation on a and b in (bool promotes to int).
constexpr scalar_type promote(scalar_type a, scalar_type b) {
  const scalar_type wider = static_cast<std::uint8_t>(a) > static_cast<std::uint8_t>(b) ? a : b;
  return wider == scalar_type::boolean ? scalar_type::int32 : wider;
}

// The C++ types a kernel may compute with. char and short never appear: C++ promotes them to
// int in every expression. Unsigned types are refused: their wrap-around arithmetic mixed
// with signed indices is a classic source of wrong answers on devices.
template <class T>
inline constexpr bool is_kernel_scalar =
    std::is_same_v<T, bool> || std::is_floating_point_v<T> ||
    (std::is_integral_v<T> && std::is_signed_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));

template <class T>
constexpr scalar_type scalar_of() {
  static_assert(is_kernel_scalar<T> && !std::is_same_v<T, long double>,
                "parloop: kernels compute with bool, 32- or 64-bit signed integers, float or double");
  if constexpr (std::is_same_v<T, bool>) return scalar_type::boolean;
  else if constexpr (std::is_same_v<T, float>) return scalar_type::float32;
  else if constexpr (std::is_same_v<T, double>) return scalar_type::float64;
  else if constexpr (sizeof(T) == 4) return scalar_type::int32;
  else return scalar_type::int64;
}

enum class op : std::uint8_t {
  // unary
  neg, logical_not,
  // binary
  add, sub, mul, div, mod, lt, le, gt, ge, eq, ne, logical_and, logical_or,
  // math calls
  sqrt, fabs, exp, log, pow, min, max, sin, cos, tan, atan2, floor, ceil,
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
