// SPDX-License-Identifier: MIT
// Writing datasets of rows in OP2's layout: a dataset named by its path (groups made on the way),
// its values as the machine holds them (HDF5's native types), and OP2's attributes. A dataset
// that is there already is written over in place when its shape and type are the same, and
// refused otherwise: nothing in a file is deleted.
#pragma once

#include <hdf5.h>

#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5/dataset.hpp"
#include "parloop/io/hdf5/file.hpp"
#include "parloop/io/hdf5/handle.hpp"

namespace parloop::hdf5::detail {

inline void check_written(const File& file, std::string_view name, herr_t status, std::string_view what) {
  if (status < 0) {
    throw file_error(
        parloop::detail::format("{}: could not write {} of '{}': {}", file.path(), what, name, library_says()));
  }
}

// An attribute of `dims` values of one int each (OP2's `size` and `dim`: dims {1}).
inline void int_attribute(const File& file, const handle& on, std::string_view name, const char* key,
                          std::span<const int> values) {
  const hsize_t count = values.size();
  const handle space(H5Screate_simple(1, &count, nullptr), &H5Sclose);
  const handle attr(H5Acreate2(on.get(), key, H5T_NATIVE_INT, space.get(), H5P_DEFAULT, H5P_DEFAULT), &H5Aclose);
  check_written(file, name, attr.valid() ? H5Awrite(attr.get(), H5T_NATIVE_INT, values.data()) : -1, key);
}

// A scalar fixed-length string attribute of `bytes` bytes (OP2's `type`: 10 bytes for a map's,
// the string's own length for a dat's), padded with NULs.
inline void text_attribute(const File& file, const handle& on, std::string_view name, const char* key,
                           std::string_view text, std::size_t bytes) {
  const handle type(H5Tcopy(H5T_C_S1), &H5Tclose);
  H5Tset_size(type.get(), bytes);
  const handle space(H5Screate(H5S_SCALAR), &H5Sclose);
  const handle attr(H5Acreate2(on.get(), key, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), &H5Aclose);
  std::string padded(text);
  padded.resize(bytes, '\0');
  check_written(file, name, attr.valid() ? H5Awrite(attr.get(), type.get(), padded.data()) : -1, key);
}

// What a dataset is written as: its dimensions (rows x width, or {width} for a constant) and
// values of one type.
struct written_shape {
  std::vector<hsize_t> dims;
  scalar_type type;
};

// The dataset at `path`, made (with the groups on its path) or, if the file has it, opened after
// checking that it has this shape and type. `made` says which.
inline handle dataset_for_writing(const File& file, std::string_view path, const written_shape& shape, bool& made) {
  quiet_errors quiet;
  if (!file.writable())
    throw file_error(parloop::detail::format("{}: opened to read, not to write '{}'", file.path(), path));
  const std::string name(path);
  if (file.contains(path)) {
    handle dataset = open_dataset(file, path);
    const dataset_info info = inspect(file, dataset, path);
    if (info.dims != shape.dims || info.type != shape.type) {
      auto words = [](const std::vector<hsize_t>& dims) {
        std::string out;
        for (hsize_t d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d);
        return out;
      };
      throw file_error(parloop::detail::format(
          "{}: dataset '{}' is there already as {} {}; writing it as {} {} would need it made again, and parloop "
          "deletes nothing in a file: write to another path or file",
          file.path(), path, words(info.dims), info.type_text, words(shape.dims), type_name(shape.type)));
    }
    made = false;
    return dataset;
  }
  const handle links(H5Pcreate(H5P_LINK_CREATE), &H5Pclose);
  H5Pset_create_intermediate_group(links.get(), 1);
  const handle space(H5Screate_simple(static_cast<int>(shape.dims.size()), shape.dims.data(), nullptr), &H5Sclose);
  const hid_t id =
      H5Dcreate2(file.id(), name.c_str(), memory_type(shape.type), space.get(), links.get(), H5P_DEFAULT, H5P_DEFAULT);
  if (id < 0) {
    throw file_error(parloop::detail::format("{}: could not make dataset '{}': {}", file.path(), path, library_says()));
  }
  made = true;
  return handle(id, &H5Dclose);
}

// Rows [first, first + count) of a dataset made by dataset_for_writing, from `values`
// (count x width of `type`), through the transfer list `transfer` (MPI-IO's collective writes
// over ranks).
inline void write_rows(const File& file, const handle& dataset, std::string_view path, scalar_type type,
                       const std::vector<hsize_t>& dims, hsize_t first, hsize_t count, const void* values,
                       hid_t transfer = H5P_DEFAULT) {
  quiet_errors quiet;
  std::vector<hsize_t> start(dims.size(), 0), size = dims;
  start[0] = first;
  size[0] = count;
  const handle space(H5Dget_space(dataset.get()), &H5Sclose);
  const handle memory(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr), &H5Sclose);
  // No rows (a rank's empty block) select nothing: HDF5 refuses a hyperslab of none.
  herr_t status = count == 0
                      ? H5Sselect_none(space.get())
                      : H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, size.data(), nullptr);
  if (count == 0 && status >= 0) status = H5Sselect_none(memory.get());
  if (status >= 0) status = H5Dwrite(dataset.get(), memory_type(type), memory.get(), space.get(), transfer, values);
  check_written(file, path, status, "the values");
}

}  // namespace parloop::hdf5::detail
