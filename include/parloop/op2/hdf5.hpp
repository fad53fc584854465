// SPDX-License-Identifier: MIT
// OP2's HDF5 calls (op_hdf5.h) over io/hdf5: files in OP2's layout, read and written as OP2's
// library does, with its conventions -- a map or dat the file lacks is reported and NULL is
// returned (applications test for it); a dataset's name may be a path; a dat read in another
// numeric type than the file's is converted, with OP2's warning. Over MPI each rank reads its own
// block of each set's rows (OP2's split: rank r of P starts at trunc(G * r / P)); what is written
// is in the declared numbering, written by the root.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5.hpp"
#include "parloop/op2/declare.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/output.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/op2/types.hpp"

namespace parloop::op2 {

namespace hdf5_detail {
inline std::string text(const char* s, std::string_view call, std::string_view what) {
  if (s == nullptr) throw argument_error(parloop::detail::format("{}: the {} is null", call, what));
  return s;
}

// The rows this rank reads of a dataset of `file_rows` rows for set `s`: its block, which must be
// the set's size here (the set read by op_decl_set_hdf5, or declared with OP2's split).
inline std::size_t first_row(const program& p, const op_set_core& s, std::size_t file_rows, std::string_view call,
                             const std::string& file) {
  const auto [first, count] = hdf5::detail::rank_block(file_rows, p.rank, p.ranks);
  if (count != static_cast<std::size_t>(s.size)) {
    throw file_error(parloop::detail::format(
        "{}: {} rows in '{}' make {} for this rank{}, and set '{}' has {}", call, file_rows, file, count,
        p.ranks > 1 ? parloop::detail::format(" ({} of {})", p.rank, p.ranks) : std::string(), s.name_text, s.size));
  }
  return first;
}

inline bool found(const hdf5::File& f, const std::string& name, const char* kind, const std::string& file) {
  if (f.contains(name)) return true;
  if (is_root()) std::printf("%s with name : %s not found in file : %s \n", kind, name.c_str(), file.c_str());
  return false;
}
}  // namespace hdf5_detail

inline op_set_core* decl_set_hdf5(const char* file, const char* name, const char* rows_of = nullptr) {
  constexpr std::string_view call = "op_decl_set_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name"), called = hdf5_detail::text(name, call, "name");
  program& p = program::current(call);
  const hdf5::File f = hdf5::File::open(path);
  const std::size_t global = rows_of != nullptr ? static_cast<std::size_t>(hdf5::detail::rows_of(f, rows_of))
                                                : static_cast<std::size_t>(hdf5::detail::set_size(f, called));
  return decl_set(static_cast<int>(hdf5::detail::rank_block(global, p.rank, p.ranks).second), called.c_str());
}

inline op_map_core* decl_map_hdf5(op_set_core* from, op_set_core* to, int dim, const char* file, const char* name) {
  constexpr std::string_view call = "op_decl_map_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name"), called = hdf5_detail::text(name, call, "name");
  check_set(from, call, "source");
  const hdf5::File f = hdf5::File::open(path);
  if (!hdf5_detail::found(f, called, "op_map", path)) return nullptr;
  program& p = program::current(call);
  const std::size_t first = hdf5_detail::first_row(p, *from, hdf5::detail::rows_of(f, called), call, path);
  std::vector<index_t> values(static_cast<std::size_t>(from->size) * static_cast<std::size_t>(std::max(dim, 0)));
  if (dim >= 1) {
    hdf5::detail::read_map_rows(f, called, std::nullopt, dim, first, static_cast<std::size_t>(from->size),
                                values.data());
  }
  return decl_map(from, to, dim, values.data(), called.c_str());
}

inline op_dat_core* decl_dat_hdf5(op_set_core* set, int dim, const char* type, const char* file, const char* name) {
  constexpr std::string_view call = "op_decl_dat_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name"), called = hdf5_detail::text(name, call, "name");
  check_set(set, call, "");
  const scalar_type t = checked_scalar(type, parloop::detail::format("{} '{}'", call, called));
  const hdf5::File f = hdf5::File::open(path);
  if (!hdf5_detail::found(f, called, "op_dat", path)) return nullptr;
  program& p = program::current(call);
  const std::size_t first = hdf5_detail::first_row(p, *set, hdf5::detail::rows_of(f, called), call, path);
  std::vector<std::byte> values(static_cast<std::size_t>(set->size) * static_cast<std::size_t>(std::max(dim, 0)) *
                                scalar_bytes(t));
  if (dim >= 1) {
    hdf5::detail::read_dat_rows(f, called, std::nullopt, dim, t, true, first, static_cast<std::size_t>(set->size),
                                values.data());
  }
  return decl_dat(set, dim, type, reinterpret_cast<const char*>(values.data()), called.c_str(), false);
}

// Reads a constant into the application's variable (it declares it with op_decl_const itself).
inline void get_const_hdf5(const char* name, int dim, const char* type, char* data, const char* file) {
  constexpr std::string_view call = "op_get_const_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name"), called = hdf5_detail::text(name, call, "name");
  const scalar_type t = checked_scalar(type, parloop::detail::format("{} '{}'", call, called));
  if (data == nullptr) throw argument_error(parloop::detail::format("{} '{}': the data is null", call, called));
  const hdf5::File f = hdf5::File::open(path);
  if (!f.contains(called)) {
    if (is_root()) std::printf("dataset '%s' not found in file '%s'\n", called.c_str(), path.c_str());
    return;
  }
  const std::vector<std::byte> values = hdf5::detail::read_constant(f, called, dim, t, true);
  std::memcpy(data, values.data(), values.size());
}

// The root writes; every rank takes part in what gathers the values.
inline void write_const_hdf5(const char* name, int dim, const char* type, const char* data, const char* file) {
  constexpr std::string_view call = "op_write_const_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name"), called = hdf5_detail::text(name, call, "name");
  const scalar_type t = checked_scalar(type, parloop::detail::format("{} '{}'", call, called));
  if (data == nullptr || dim < 1) {
    throw argument_error(
        parloop::detail::format("{} '{}': {} values at {}", call, called, dim, static_cast<const void*>(data)));
  }
  if (!is_root()) return;
  hdf5::File f = hdf5::File::append(path);
  hdf5::detail::write_constant(f, called, dim, t, data);
}

// One dat, in the declared numbering, at `at` (its name by default; groups made on the way).
inline void fetch_data_hdf5(op_dat_core* d, const char* file, const char* at) {
  constexpr std::string_view call = "op_fetch_data_hdf5_file";
  int elements = 0;
  const std::optional<std::vector<std::byte>> values = dat_for_file(call, d, file, elements);
  const std::string where = at != nullptr ? std::string(at) : d->name_text;
  if (!values) return;
  hdf5::File f = hdf5::File::append(file);
  hdf5::detail::write_dat(f, where, static_cast<std::size_t>(elements), d->dim, d->scalar, d->type_text, 0,
                          static_cast<std::size_t>(elements), values->data());
}

// Every set, map and dat, in the order declared, to a new file, in the declared numbering. Over
// MPI ranks, each rank's declared blocks are put together on the root, which writes (OP2 writes
// what each rank holds, in the partitioned numbering once op_partition has run).
inline void dump_to_hdf5(const char* file) {
  constexpr std::string_view call = "op_dump_to_hdf5";
  const std::string path = hdf5_detail::text(file, call, "file name");
  program& p = program::current(call);
  const auto whole = [&](std::span<const std::byte> mine) {
    return p.mpi ? p.mpi->blocks_on_root(mine) : std::vector<std::byte>(mine.begin(), mine.end());
  };
  std::vector<std::size_t> set_sizes;
  for (const auto& s : p.sets) {
    set_sizes.push_back(static_cast<std::size_t>(p.mpi ? p.mpi->global_size(*s) : s->size));
  }
  std::vector<std::vector<std::byte>> maps, dats;
  for (const auto& m : p.maps) maps.push_back(whole(std::as_bytes(std::span<const int>(m->values))));
  for (const auto& d : p.dats) {
    if (p.mpi && p.mpi->partitioned()) {
      dats.push_back(p.mpi->gathered(*d));
    } else {
      const std::size_t bytes = static_cast<std::size_t>(d->set->size) * static_cast<std::size_t>(d->size);
      dats.push_back(whole({user_values(*d), bytes}));
    }
  }
  if (!is_root()) return;
  std::printf("Writing to %s\n", path.c_str());
  hdf5::File f = hdf5::File::create(path);
  for (std::size_t i = 0; i < p.sets.size(); ++i) {
    hdf5::detail::write_set(f, p.sets[i]->name_text, static_cast<index_t>(set_sizes[i]));
  }
  for (std::size_t i = 0; i < p.maps.size(); ++i) {
    const op_map_core& m = *p.maps[i];
    const std::size_t rows = set_sizes[static_cast<std::size_t>(m.from->index)];
    hdf5::detail::write_map(f, m.name_text, rows, m.dim, 0, rows, reinterpret_cast<const index_t*>(maps[i].data()));
  }
  for (std::size_t i = 0; i < p.dats.size(); ++i) {
    const op_dat_core& d = *p.dats[i];
    const std::size_t rows = set_sizes[static_cast<std::size_t>(d.set->index)];
    hdf5::detail::write_dat(f, d.name_text, rows, d.dim, d.scalar, d.type_text, 0, rows, dats[i].data());
  }
  f.close();
}

}  // namespace parloop::op2
