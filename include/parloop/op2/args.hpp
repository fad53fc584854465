// SPDX-License-Identifier: MIT
// OP2's loop arguments: op_arg_dat (direct, through a map's slot, or a vector of a map's slots),
// op_opt_arg_dat, op_arg_gbl, op_arg_idx and op_arg_info. Each is checked against what it names
// here; against the loop's set and the kernel's parameters when the loop runs (op2/loop.hpp).
#pragma once

#include <string>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/op2/types.hpp"

namespace parloop::op2 {

// OP2's values of op_access and op_arg_type.
inline constexpr int read_access = 0, write_access = 1, rw_access = 2, inc_access = 3, min_access = 4, max_access = 5;
inline constexpr int gbl_arg = 0, dat_arg = 1, idx_arg = 2, info_arg = 3;

inline std::string_view access_name(int acc) {
  constexpr std::string_view names[] = {"OP_READ", "OP_WRITE", "OP_RW", "OP_INC", "OP_MIN", "OP_MAX"};
  return acc >= 0 && acc < 6 ? names[acc] : "an unknown access";
}

struct op_arg {
  // OP2's fields.
  int index = 0;
  op_dat_core* dat = nullptr;
  op_map_core* map = nullptr;
  int dim = 0;
  int idx = -1;
  int size = 0;          // bytes per element (a global's: all of it)
  char* data = nullptr;  // a global's: the user's variable
  char* data_d = nullptr;
  int* map_data = nullptr;
  int* map_data_d = nullptr;
  const char* type = nullptr;
  int acc = read_access;
  int argtype = dat_arg;
  int sent = 0;
  int opt = 1;
  // parloop's: the value type.
  scalar_type scalar = scalar_type::float64;
};

// An argument whose data C++ knows the type of (a global's, an index's): op_par_loop checks it
// against the kernel's parameter at compile time.
template <class T>
struct typed_arg : op_arg {};

inline void check_access(int acc, std::string_view what) {
  if (acc < read_access || acc > max_access) {
    throw argument_error(parloop::detail::format(
        "{}: access {} is none of OP_READ, OP_WRITE, OP_RW, OP_INC, OP_MIN, OP_MAX", what, acc));
  }
}

inline op_arg arg_dat(int opt, op_dat_core* dat, int idx, op_map_core* map, int dim, const char* type, int acc) {
  op_arg a;
  a.opt = opt != 0 ? 1 : 0;
  a.dat = dat;
  a.map = map;
  a.dim = dim;
  a.idx = idx;
  a.type = type;
  a.acc = acc;
  if (a.opt == 0 && dat == nullptr) return a;
  // Named only when something is wrong: a loop in a time step makes its arguments each time.
  const auto what = [&] {
    return parloop::detail::format("op_arg_dat of dat '{}'", dat == nullptr ? "(null)" : dat->name);
  };
  if (dat == nullptr) throw argument_error("op_arg_dat: the dat is null");
  if (acc < read_access || acc > max_access) check_access(acc, what());
  a.size = dat->size;
  const std::optional<scalar_type> named = type != nullptr ? scalar_of_name(type) : std::nullopt;
  a.scalar = named ? *named : checked_scalar(type, what());
  if (a.scalar != dat->scalar) {
    throw data_error(
        parloop::detail::format("{}: type \"{}\" given, the dat holds \"{}\"", what(), type, dat->type_text));
  }
  if (dim != dat->dim)
    throw data_error(parloop::detail::format("{}: dimension {} given, the dat has {}", what(), dim, dat->dim));
  if (map == nullptr) {
    if (idx != -1) {
      throw argument_error(
          parloop::detail::format("{}: index {} with OP_ID; a direct argument takes index -1", what(), idx));
    }
    return a;
  }
  a.map_data = map->map;
  if (map->to != dat->set) {
    throw argument_error(parloop::detail::format("{}: map '{}' leads to set '{}', the dat is on '{}'", what(),
                                                 map->name_text, map->to->name_text, dat->set->name_text));
  }
  if (idx >= map->dim || idx == -1 || (idx < -1 && -idx != map->dim)) {
    throw argument_error(
        parloop::detail::format("{}: index {} of map '{}' of dimension {}: an index is 0 to {}, or {} for all its "
                                "entries",
                                what(), idx, map->name_text, map->dim, map->dim - 1, -map->dim));
  }
  return a;
}

// The storage of a loop's `nth` global argument of `dim` values of type t (-1: an optional one
// left out, which stays zero).
inline detail::any_array* global_of(scalar_type t, int dim, int nth) {
  program& p = program::current("op_arg_gbl");
  auto [at, made] = p.globals.try_emplace({t, dim, nth});
  if (made) at->second = detail::make_any_global(p.runtime, t, "op_arg_gbl", dim);
  return &at->second;
}

template <class T>
typed_arg<T> arg_gbl(int opt, T* data, int dim, const char* type, int acc, int kind) {
  typed_arg<T> a;
  const std::string_view what = kind == info_arg ? "op_arg_info" : "op_arg_gbl";
  a.argtype = kind;
  a.opt = opt != 0 && data != nullptr ? 1 : 0;
  a.data = reinterpret_cast<char*>(const_cast<std::remove_const_t<T>*>(data));
  a.dim = dim;
  a.type = type;
  a.acc = acc;  // op_arg_info's: the number of the reduction it goes with
  if (kind == gbl_arg) check_access(acc, what);
  if (dim < 1) throw argument_error(parloop::detail::format("{}: the dimension is {}", what, dim));
  a.scalar = checked_scalar(type, what);
  if constexpr (constexpr std::optional<scalar_type> known = scalar_of_data<T>(); known.has_value()) {
    if (*known != a.scalar) {
      throw data_error(
          parloop::detail::format("{}: type \"{}\" given for a variable of type {}", what, type, type_name(*known)));
    }
  }
  a.size = dim * static_cast<int>(scalar_bytes(a.scalar));
  if (kind == gbl_arg && (acc == write_access || acc == rw_access)) {
    throw argument_error(
        parloop::detail::format("{}: {} of a global: a global is OP_READ, or reduced into with OP_INC, OP_MIN "
                                "or OP_MAX",
                                what, access_name(acc)));
  }
  return a;
}

inline typed_arg<int> arg_idx(int idx, op_map_core* map) {
  typed_arg<int> a;
  a.argtype = idx_arg;
  a.idx = idx;
  a.map = map;
  a.dim = 1;
  a.type = "int";
  a.scalar = scalar_type::int32;
  a.size = 4;
  if (map == nullptr ? idx != -1 : idx < 0 || idx >= map->dim) {
    throw argument_error(map == nullptr
                             ? parloop::detail::format("op_arg_idx: index {} with OP_ID; the element's own is -1", idx)
                             : parloop::detail::format("op_arg_idx: index {} of map '{}' of dimension {}", idx,
                                                       map->name_text, map->dim));
  }
  return a;
}

}  // namespace parloop::op2
