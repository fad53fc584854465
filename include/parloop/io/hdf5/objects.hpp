// SPDX-License-Identifier: MIT
// A set's size, a map's rows, a dat's values and a constant in OP2's layout, with their types
// known at run time (scalar_type), for the typed API (io/hdf5.hpp) and OP2's (op2/hdf5.hpp):
//   set       an integer dataset of one value, its size;
//   map       rows x arity ints, the targets numbered from 0; attributes size (rows), dim, and
//             type ("int", a 10-byte string);
//   dat       rows x dim values of its type; attributes size (bytes a row), dim, and type ("double",
//             "float", "int", "long": a string of its own length);
//   constant  dim values; attributes dim and type.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5/dataset.hpp"
#include "parloop/io/hdf5/file.hpp"
#include "parloop/io/hdf5/writing.hpp"

namespace parloop::hdf5::detail {

// The size a set's dataset holds.
inline index_t set_size(const File& file, std::string_view name) {
  const handle dataset = open_dataset(file, name);
  const dataset_info info = inspect(file, dataset, name);
  const bool integer = info.type == scalar_type::int32 || info.type == scalar_type::int64;
  if (info.elements() != 1 || info.dims.size() > 1 || !integer) {
    throw file_error(parloop::detail::format(
        "{}: dataset '{}' read as a set holds {} value(s) of {}; expected one integer, the set's size", file.path(),
        name, info.elements(), info.type_text));
  }
  std::int64_t size = 0;
  read_rows(file, dataset, name, scalar_type::int64, 0, 1, 1, true, &size);
  if (size < 0 || size > std::numeric_limits<index_t>::max()) {
    throw file_error(parloop::detail::format("{}: set '{}' has size {}; expected 0 to {}", file.path(), name, size,
                                             std::numeric_limits<index_t>::max()));
  }
  return static_cast<index_t>(size);
}

// A dataset of rows opened and checked: its handle, rows, width and the type it holds.
struct rows_dataset {
  handle dataset;
  hsize_t rows;
  int width;
  bool one_dim;
  scalar_type stored;
};

// Opens the dataset and checks it against `want`, whose type is the one `stored` gives for the
// type the file holds (none: a type parloop holds no data of): by default, want.type alone.
template <class Stored>
rows_dataset open_rows(const File& file, std::string_view name, std::string_view what, row_shape want,
                       Stored&& stored) {
  handle dataset = open_dataset(file, name);
  const dataset_info info = inspect(file, dataset, name);
  want.type = stored(info.type);
  const auto [rows, width] = check_rows(file, info, name, what, want);
  check_storage(file, dataset, name, rows * static_cast<hsize_t>(width) * scalar_bytes(want.type));
  return {std::move(dataset), rows, width, info.dims.size() == 1, want.type};
}
inline rows_dataset open_rows(const File& file, std::string_view name, std::string_view what, const row_shape& want) {
  return open_rows(file, name, what, want, [&](std::optional<scalar_type>) { return want.type; });
}

// This rank's block [first, first + count) of `rows` rows: OP2's split, rank r of P starting at
// trunc(rows * r / P) (computed in double, as OP2 does), so that a file is read in the same blocks.
inline std::pair<hsize_t, hsize_t> rank_block(hsize_t rows, int rank, int ranks) {
  auto start = [&](int r) {
    return r == ranks ? rows
                      : static_cast<hsize_t>(static_cast<double>(rows) *
                                             (static_cast<double>(r) / static_cast<double>(ranks)));
  };
  return {start(rank), start(rank + 1) - start(rank)};
}

// A map's rows [first, first + count) of `arity` targets (its whole when the set is not
// distributed), into `out`. Maps are ints in OP2's files; 64-bit ones (OP2's long maps) are read
// as ints, a value past int's range refused by the Map's own check of its targets.
inline void read_map_rows(const File& file, std::string_view name, std::optional<hsize_t> rows, int arity,
                          hsize_t first, hsize_t count, index_t* out) {
  const rows_dataset d = open_rows(file, name, parloop::detail::format("map '{}'", name),
                                   {rows, arity, scalar_type::int32}, [](std::optional<scalar_type> held) {
                                     return held == scalar_type::int64 ? scalar_type::int64 : scalar_type::int32;
                                   });
  read_rows(file, d.dataset, name, scalar_type::int32, first, count, d.width, d.one_dim, out);
}

// A dat's rows [first, first + count) of `dim` values of `type`, into `out`. `convert`: read
// another numeric type of the file as `type` (OP2's rule, with its warning), else refuse it.
inline void read_dat_rows(const File& file, std::string_view name, std::optional<hsize_t> rows, int dim,
                          scalar_type type, bool convert, hsize_t first, hsize_t count, void* out) {
  const rows_dataset d = open_rows(file, name, parloop::detail::format("dat '{}'", name), {rows, dim, type},
                                   [&](std::optional<scalar_type> held) { return convert && held ? *held : type; });
  if (d.stored != type) {
    std::fprintf(stderr, "parloop: %s: dataset '%s' holds %s, read as %s\n", file.path().c_str(),
                 std::string(name).c_str(), std::string(type_name(d.stored)).c_str(),
                 std::string(type_name(type)).c_str());
  }
  read_rows(file, d.dataset, name, type, first, count, d.width, d.one_dim, out);
}

// The rows a dataset of rows has (a set's size, where OP2 infers it from a dat or map).
inline hsize_t rows_of(const File& file, std::string_view name) {
  const handle dataset = open_dataset(file, name);
  const dataset_info info = inspect(file, dataset, name);
  if (info.dims.empty()) {
    throw file_error(parloop::detail::format("{}: dataset '{}' is a single value, not rows", file.path(), name));
  }
  return info.dims[0];
}

// The values a row of a dataset of rows has (1 for a dataset of one dimension).
inline int width_of(const File& file, std::string_view name) {
  const dataset_info info = inspect(file, open_dataset(file, name), name);
  return info.dims.size() == 2 ? static_cast<int>(info.dims[1]) : 1;
}

// A constant's `dim` values (any number when 0) of `type`, with OP2's `convert` rule.
inline std::vector<std::byte> read_constant(const File& file, std::string_view name, int dim, scalar_type type,
                                            bool convert) {
  const handle dataset = open_dataset(file, name);
  const dataset_info info = inspect(file, dataset, name);
  if (info.dims.size() > 1 || (dim > 0 && info.elements() != static_cast<hsize_t>(dim))) {
    throw file_error(
        parloop::detail::format("{}: dataset '{}' read as a constant of {} values holds {} in {} dimension(s)",
                                file.path(), name, dim, info.elements(), info.dims.size()));
  }
  if (!info.type || (*info.type != type && !convert)) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as a constant holds {}; expected {}", file.path(),
                                             name, info.type_text, type_name(type)));
  }
  const hsize_t count = info.elements();
  check_storage(file, dataset, name, count * scalar_bytes(*info.type));
  std::vector<std::byte> values(count * scalar_bytes(type));
  read_rows(file, dataset, name, type, 0, count, 1, true, values.data());
  return values;
}

// Writers. `global_rows` is the rows of the whole dataset, of which a call writes
// [first, first + count) from `values`.
inline void write_set(File& file, std::string_view name, index_t size) {
  bool made = false;
  const written_shape shape{{1}, scalar_type::int32};
  const handle dataset = dataset_for_writing(file, name, shape, made);
  write_rows(file, dataset, name, scalar_type::int32, shape.dims, 0, 1, &size);
}

inline void write_map(File& file, std::string_view name, hsize_t global_rows, int arity, hsize_t first, hsize_t count,
                      const index_t* values) {
  bool made = false;
  const written_shape shape{{global_rows, static_cast<hsize_t>(arity)}, scalar_type::int32};
  const handle dataset = dataset_for_writing(file, name, shape, made);
  write_rows(file, dataset, name, scalar_type::int32, shape.dims, first, count, values);
  if (!made) return;
  const int rows = static_cast<int>(global_rows);
  int_attribute(file, dataset, name, "size", {&rows, 1});
  int_attribute(file, dataset, name, "dim", {&arity, 1});
  text_attribute(file, dataset, name, "type", "int", 10);
}

// `type_text`: the dat's type as OP2 names it ("double", or an OP2 program's "double:soa").
inline void write_dat(File& file, std::string_view name, hsize_t global_rows, int dim, scalar_type type,
                      std::string_view type_text, hsize_t first, hsize_t count, const void* values,
                      hid_t transfer = H5P_DEFAULT) {
  bool made = false;
  const written_shape shape{{global_rows, static_cast<hsize_t>(dim)}, type};
  const handle dataset = dataset_for_writing(file, name, shape, made);
  write_rows(file, dataset, name, type, shape.dims, first, count, values, transfer);
  if (!made) return;
  const int row_bytes = dim * static_cast<int>(scalar_bytes(type));
  int_attribute(file, dataset, name, "size", {&row_bytes, 1});
  int_attribute(file, dataset, name, "dim", {&dim, 1});
  text_attribute(file, dataset, name, "type", type_text, type_text.size());
}

inline void write_constant(File& file, std::string_view name, int dim, scalar_type type, const void* values) {
  bool made = false;
  const written_shape shape{{static_cast<hsize_t>(dim)}, type};
  const handle dataset = dataset_for_writing(file, name, shape, made);
  write_rows(file, dataset, name, type, shape.dims, 0, static_cast<hsize_t>(dim), values);
  if (!made) return;
  int_attribute(file, dataset, name, "dim", {&dim, 1});
  text_attribute(file, dataset, name, "type", type_name(type), type_name(type).size());
}

}  // namespace parloop::hdf5::detail
