// SPDX-License-Identifier: MIT
// Datasets of rows: a set's elements times a width (a map's arity, a dat's dimension), of one of
// parloop's scalar types, read whole or a block of rows at a time and written whole, with every
// check a damaged or unexpected file needs before anything is allocated; and the attributes
// OP2's layout puts on them.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5/file.hpp"
#include "parloop/io/hdf5/handle.hpp"

namespace parloop::hdf5::detail {

// HDF5's in-memory type of a scalar type.
inline hid_t memory_type(scalar_type t) {
  switch (t) {
    case scalar_type::float64: return H5T_NATIVE_DOUBLE;
    case scalar_type::float32: return H5T_NATIVE_FLOAT;
    case scalar_type::int32: return H5T_NATIVE_INT32;
    case scalar_type::int64: return H5T_NATIVE_INT64;
    case scalar_type::boolean: break;
  }
  return H5T_NATIVE_HBOOL;
}

// A dataset's shape and the scalar type of its values, as the file declares them.
struct dataset_info {
  std::vector<hsize_t> dims;
  std::optional<scalar_type> type;  // none: a type parloop holds no data of
  std::string type_text;            // the file's type in words, for messages
  hsize_t elements() const {
    hsize_t n = 1;
    for (hsize_t d : dims) n *= d;
    return n;
  }
};

inline std::string type_words(hid_t type) {
  const H5T_class_t kind = H5Tget_class(type);
  const std::size_t bytes = H5Tget_size(type);
  if (kind == H5T_FLOAT) return parloop::detail::format("{}-byte floating point", bytes);
  if (kind == H5T_INTEGER) {
    return parloop::detail::format("{} {}-byte integer", H5Tget_sign(type) == H5T_SGN_NONE ? "unsigned" : "signed",
                                   bytes);
  }
  if (kind == H5T_STRING) return "string";
  if (kind == H5T_COMPOUND) return "compound";
  return "non-numeric";
}

inline std::optional<scalar_type> scalar_of_type(hid_t type) {
  const H5T_class_t kind = H5Tget_class(type);
  const std::size_t bytes = H5Tget_size(type);
  if (kind == H5T_FLOAT && bytes == 8) return scalar_type::float64;
  if (kind == H5T_FLOAT && bytes == 4) return scalar_type::float32;
  if (kind == H5T_INTEGER && H5Tget_sign(type) != H5T_SGN_NONE && bytes == 4) return scalar_type::int32;
  if (kind == H5T_INTEGER && H5Tget_sign(type) != H5T_SGN_NONE && bytes == 8) return scalar_type::int64;
  return std::nullopt;
}

// The dataset at `name`, opened; a file_error naming the file and the dataset if it is missing.
inline handle open_dataset(const File& file, std::string_view name) {
  quiet_errors quiet;
  if (!file.contains(name)) {
    throw file_error(parloop::detail::format("{}: no dataset '{}'", file.path(), name));
  }
  const std::string path(name);
  const hid_t id = H5Dopen2(file.id(), path.c_str(), H5P_DEFAULT);
  if (id < 0) {
    throw file_error(parloop::detail::format("{}: '{}' is not a dataset: {}", file.path(), name, library_says()));
  }
  return handle(id, &H5Dclose);
}

inline dataset_info inspect(const File& file, const handle& dataset, std::string_view name) {
  quiet_errors quiet;
  dataset_info info;
  const handle space(H5Dget_space(dataset.get()), &H5Sclose);
  const handle type(H5Dget_type(dataset.get()), &H5Tclose);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (!type.valid() || rank < 0) {
    throw file_error(parloop::detail::format("{}: dataset '{}' is damaged: {}", file.path(), name, library_says()));
  }
  info.dims.resize(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), info.dims.data(), nullptr);
  info.type = scalar_of_type(type.get());
  info.type_text = type_words(type.get());
  return info;
}

// A dataset's values that the file does not hold (a damaged header claiming more than was
// written, a truncated file) are refused before anything that size is allocated: an
// uncompressed dataset's storage must hold them all, and no dataset may claim more than a
// thousand times the file's size.
inline void check_storage(const File& file, const handle& dataset, std::string_view name, hsize_t bytes) {
  quiet_errors quiet;
  const handle plist(H5Dget_create_plist(dataset.get()), &H5Pclose);
  const bool plain = plist.valid() && H5Pget_layout(plist.get()) != H5D_CHUNKED;
  const hsize_t stored = H5Dget_storage_size(dataset.get());
  hsize_t file_bytes = 0;
  H5Fget_filesize(file.id(), &file_bytes);
  if ((plain && (stored < bytes || bytes > file_bytes)) || bytes / 1000 > file_bytes) {
    throw file_error(parloop::detail::format(
        "{}: dataset '{}' is damaged or truncated: it declares {} bytes of values, and the file holds {} of them",
        file.path(), name, bytes, std::min(stored, file_bytes)));
  }
}

// What a dataset of rows must be: 2-dimensional (or 1-dimensional with width 1), `rows` rows
// (any when unset) of `width` values (any when 0), of scalar type `type`. `what` says what the
// dataset was read as ("map 'pcell'").
struct row_shape {
  std::optional<hsize_t> rows;
  int width = 0;
  scalar_type type;
};

// The dataset's rows and width, checked against `want`.
inline std::pair<hsize_t, int> check_rows(const File& file, const dataset_info& info, std::string_view name,
                                          std::string_view what, const row_shape& want) {
  const bool one_dim = info.dims.size() == 1;
  if (info.dims.size() != 2 && !(one_dim && want.width <= 1)) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as {} has {} dimensions; expected 2 (rows x {})",
                                             file.path(), name, what, info.dims.size(),
                                             want.width > 0 ? std::to_string(want.width) : "width"));
  }
  const hsize_t rows = info.dims[0];
  const hsize_t width = one_dim ? 1 : info.dims[1];
  if (want.width > 0 && width != static_cast<hsize_t>(want.width)) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as {} has {} values a row; expected {}",
                                             file.path(), name, what, width, want.width));
  }
  if (want.rows && rows != *want.rows) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as {} has {} rows; expected {}", file.path(), name,
                                             what, rows, *want.rows));
  }
  if (!info.type || *info.type != want.type) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as {} holds {}; expected {}", file.path(), name,
                                             what, info.type_text, type_name(want.type)));
  }
  if (width == 0 || width > 1u << 20 || rows > (hsize_t{1} << 40)) {
    throw file_error(parloop::detail::format("{}: dataset '{}' read as {} has {} rows of {}: not a mesh's", file.path(),
                                             name, what, rows, width));
  }
  return {rows, static_cast<int>(width)};
}

// Rows [first, first + count) of a checked dataset, `width` values each, into `out`.
inline void read_rows(const File& file, const handle& dataset, std::string_view name, scalar_type type, hsize_t first,
                      hsize_t count, int width, bool one_dim, void* out) {
  quiet_errors quiet;
  const handle space(H5Dget_space(dataset.get()), &H5Sclose);
  const hsize_t start[2] = {first, 0}, size[2] = {count, static_cast<hsize_t>(width)};
  const int rank = one_dim ? 1 : 2;
  const handle memory(H5Screate_simple(rank, size, nullptr), &H5Sclose);
  // No rows (a rank's empty block) select nothing: HDF5 refuses a hyperslab of none.
  herr_t status = count == 0 ? H5Sselect_none(space.get())
                             : H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr);
  if (count == 0 && status >= 0) status = H5Sselect_none(memory.get());
  if (status >= 0) status = H5Dread(dataset.get(), memory_type(type), memory.get(), space.get(), H5P_DEFAULT, out);
  if (status < 0) {
    throw file_error(parloop::detail::format("{}: dataset '{}' could not be read (rows {} to {}): {}", file.path(),
                                             name, first, first + count, library_says()));
  }
}

}  // namespace parloop::hdf5::detail
