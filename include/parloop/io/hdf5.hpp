// SPDX-License-Identifier: MIT
// Meshes and checkpoints in HDF5 files, in OP2's layout (io/hdf5/objects.hpp), so that a file OP2
// wrote reads here and the reverse: sets, maps, dats and constants read from a file, and written
// to one in the user's numbering whatever pl::renumber did. A checkpoint is the dats written to a
// new file (hdf5::checkpoint); a restart reads them back into the dats (hdf5::restart).
// The component parloop::hdf5 (find_package(parloop COMPONENTS hdf5)).
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <type_traits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/dat.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5/file.hpp"
#include "parloop/io/hdf5/objects.hpp"

namespace parloop::hdf5 {

namespace detail {
// Reading and writing here are of one process's whole sets.
inline void check_whole(const Set& set, std::string_view what, std::string_view name) {
  if (set.distribution() != nullptr) {
    throw argument_error(parloop::detail::format(
        "hdf5: {} '{}' is on set '{}', distributed over MPI ranks: read a mesh with hdf5::mesh_reader and "
        "write and read dats with hdf5::checkpoint(comm, ...) and hdf5::restart(comm, ...) (io/hdf5_mpi.hpp)",
        what, name, set.name()));
  }
}

// A dat's dataset checked against the dat before any of its values are touched, so that a file
// refused leaves them as they were.
template <class T, int Dim>
void check_dat_file(const File& file, const Dat<T, Dim>& dat, std::string_view name) {
  check_whole(dat.set(), "dat", name);
  const hsize_t rows = static_cast<hsize_t>(dat.set().size());
  static_cast<void>(open_rows(file, name, parloop::detail::format("dat '{}'", name), {rows, Dim, scalar_of<T>()}));
}
}  // namespace detail

// The size a set's dataset holds (its one integer).
inline index_t read_size(const File& file, std::string_view name) { return detail::set_size(file, name); }

// The values of a dataset of rows, row by row: `rows` rows (any number when unset) of `width`
// values of T (the file's width when 0) -- what a program that declares its own maps and dats
// reads. Targets of maps (index_t) are read from OP2's ints or longs.
template <class T>
std::vector<T> read_values(const File& file, std::string_view name, std::optional<hsize_t> rows = {}, int width = 0) {
  if (width == 0) width = detail::width_of(file, name);
  const hsize_t count = rows ? *rows : detail::rows_of(file, name);
  std::vector<T> values(count * static_cast<std::size_t>(width));
  if constexpr (std::is_same_v<T, index_t>) {
    detail::read_map_rows(file, name, count, width, 0, count, values.data());
  } else {
    detail::read_dat_rows(file, name, count, width, scalar_of<T>(), false, 0, count, values.data());
  }
  return values;
}

// The set `name` of the file: its size is the dataset's one integer.
inline Set read_set(const Runtime& rt, const File& file, std::string_view name) {
  return Set(rt, read_size(file, name), std::string(name));
}

// The map `name` from `from` to `to`: from.size() rows of `arity` targets (the file's when 0).
inline Map read_map(const File& file, std::string_view name, const Set& from, const Set& to, int arity = 0) {
  detail::check_whole(from, "map", name);
  if (arity == 0) arity = detail::width_of(file, name);
  const std::vector<index_t> values = read_values<index_t>(file, name, static_cast<hsize_t>(from.size()), arity);
  try {
    return Map(from, to, arity, std::span<const index_t>(values), std::string(name));
  } catch (const data_error& e) {
    throw file_error(parloop::detail::format("{}: {}", file.path(), e.message()));
  }
}

// The dat `name` on `set`: set.size() rows of Dim values of T.
template <class T, int Dim = 1>
Dat<T, Dim> read_dat(const File& file, std::string_view name, const Set& set) {
  detail::check_whole(set, "dat", name);
  return Dat<T, Dim>(set, read_values<T>(file, name, static_cast<hsize_t>(set.size()), Dim), std::string(name));
}

// The dataset `name` (the dat's own name when empty) read into `dat`, in the user's numbering:
// a restart's values.
template <class T, int Dim>
void read_into(const File& file, Dat<T, Dim>& dat, std::string_view name = {}) {
  if (name.empty()) name = dat.name();
  detail::check_dat_file(file, dat, name);
  const hsize_t rows = static_cast<hsize_t>(dat.set().size());
  std::span<T> into = dat.host_view(WRITE);
  detail::read_dat_rows(file, name, rows, Dim, scalar_of<T>(), false, 0, rows, into.data());
}

// The constant `name`: its values (`count` of them, any number when 0).
template <class T>
std::vector<T> read_constant(const File& file, std::string_view name, int count = 0) {
  const std::vector<std::byte> bytes = detail::read_constant(file, name, count, scalar_of<T>(), false);
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// Writers: into a File opened by append or create, at `path` (the object's name when empty;
// groups on the path are made). A dataset already there is written over if its shape and type
// are the same, and refused otherwise.
inline void write(File& file, const Set& set, std::string_view path = {}) {
  detail::check_whole(set, "set", set.name());
  detail::write_set(file, path.empty() ? std::string_view(set.name()) : path, set.size());
}

inline void write(File& file, const Map& map, std::string_view path = {}) {
  detail::check_whole(map.from(), "map", map.name());
  const hsize_t rows = static_cast<hsize_t>(map.from().size());
  detail::write_map(file, path.empty() ? std::string_view(map.name()) : path, rows, map.arity(), 0, rows,
                    map.values().data());
}

template <class T, int Dim>
void write(File& file, const Dat<T, Dim>& dat, std::string_view path = {}) {
  detail::check_whole(dat.set(), "dat", dat.name());
  const hsize_t rows = static_cast<hsize_t>(dat.set().size());
  constexpr scalar_type type = scalar_of<T>();
  detail::write_dat(file, path.empty() ? std::string_view(dat.name()) : path, rows, Dim, type, type_name(type), 0, rows,
                    dat.host().data());
}

template <class T>
void write_constant(File& file, std::string_view name, std::span<const T> values) {
  detail::write_constant(file, name, static_cast<int>(values.size()), scalar_of<T>(), values.data());
}
template <class T>
void write_constant(File& file, std::string_view name, const T& value) {
  write_constant(file, name, std::span<const T>(&value, 1));
}

// A checkpoint: the dats written to a new file at `path`, which takes that name only once all
// of them are written.
template <class... Dats>
void checkpoint(const std::string& path, const Dats&... dats) {
  File file = File::create(path);
  ((write(file, dats), file.start_writeback()), ...);
  file.close();
}

// A restart: the dats read back from a checkpoint, each from the dataset of its name; all of them
// checked first, so that a checkpoint refused changes none.
template <class... Dats>
void restart(const std::string& path, Dats&... dats) {
  const File file = File::open(path);
  (detail::check_dat_file(file, dats, dats.name()), ...);
  (read_into(file, dats), ...);
}

}  // namespace parloop::hdf5
