// SPDX-License-Identifier: MIT
// OP2's type names ("double", "int", ...) and the C++ types of an OP2 kernel's parameters, as
// parloop's scalar types: what op_decl_dat, op_arg_dat and op_par_loop check against each other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::op2 {

// The scalar type an OP2 type name means, with OP2's optional ":soa" (parloop chooses each
// device's layout itself); none for a name parloop's dats cannot hold.
inline std::optional<scalar_type> scalar_of_name(std::string_view name) {
  if (name.ends_with(":soa")) name.remove_suffix(4);
  if (name == "double") return scalar_type::float64;
  if (name == "float") return scalar_type::float32;
  if (name == "int") return scalar_type::int32;
  if (name == "ll" || name == "long long") return scalar_type::int64;
  return std::nullopt;
}

// As scalar_of_name, or a data_error naming what was declared and what parloop holds.
inline scalar_type checked_scalar(const char* name, std::string_view what) {
  if (name == nullptr) throw data_error(parloop::detail::format("{}: the type name is null", what));
  if (auto t = scalar_of_name(name)) return *t;
  throw data_error(
      parloop::detail::format("{}: type \"{}\" is not one parloop's dats hold: \"double\", \"float\", \"int\" or "
                              "\"ll\" (optionally with \":soa\")",
                              what, name));
}

// The scalar type of a C++ type given as data: none for char and void (the bytes of a type
// named by a string) -- and a compile error for one parloop's dats cannot hold.
template <class T>
constexpr std::optional<scalar_type> scalar_of_data() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, char> || std::is_same_v<U, void>) {
    return std::nullopt;
  } else {
    static_assert(std::is_same_v<U, double> || std::is_same_v<U, float> || std::is_same_v<U, int> ||
                      std::is_same_v<U, long long> || std::is_same_v<U, long> || std::is_same_v<U, std::int64_t>,
                  "parloop's OP2 API: data of this type cannot be held: parloop's dats and globals hold double, "
                  "float, int and long long (\"double\", \"float\", \"int\", \"ll\")");
    return scalar_of<U>();
  }
}

}  // namespace parloop::op2
