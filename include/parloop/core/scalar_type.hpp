// SPDX-License-Identifier: MIT
// The scalar types of dats, globals and kernels, and the C++ types that map onto them. In core
// rather than the IR because data on a rank and the transfers between ranks are typed by them
// too, and core sits below the IR.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "parloop/error.hpp"

namespace parloop {

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
constexpr std::size_t scalar_bytes(scalar_type t) {
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
inline constexpr bool is_kernel_scalar = std::is_same_v<T, bool> || std::is_floating_point_v<T> ||
                                         (std::is_integral_v<T> && std::is_signed_v<T> &&
                                          (sizeof(T) == 4 || sizeof(T) == 8));

template <class T>
constexpr scalar_type scalar_of() {
  static_assert(is_kernel_scalar<T> && !std::is_same_v<T, long double>,
                "parloop: kernels compute with bool, 32- or 64-bit signed integers, float or double");
  if constexpr (std::is_same_v<T, bool>)
    return scalar_type::boolean;
  else if constexpr (std::is_same_v<T, float>)
    return scalar_type::float32;
  else if constexpr (std::is_same_v<T, double>)
    return scalar_type::float64;
  else if constexpr (sizeof(T) == 4)
    return scalar_type::int32;
  else
    return scalar_type::int64;
}

// Calls f with a value of the C++ type that data of type t hold (a dat's or a global's: double,
// float, std::int32_t or std::int64_t), where t is known at run time only; `what` names the
// data in the error for bool, which no dat or global holds.
template <class F>
decltype(auto) with_data_scalar(scalar_type t, std::string_view what, F&& f) {
  switch (t) {
    case scalar_type::float64: return f(double{});
    case scalar_type::float32: return f(float{});
    case scalar_type::int32: return f(std::int32_t{});
    case scalar_type::int64: return f(std::int64_t{});
    case scalar_type::boolean: break;
  }
  throw data_error(std::string(what) + ": parloop's dats and globals hold double, float, int or long, not bool");
}

}  // namespace parloop
