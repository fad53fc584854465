// SPDX-License-Identifier: MIT
// HDF5 files over MPI ranks: a mesh file read into a global mesh by every rank at once, each its
// own block of every set's rows (OP2's split, io/hdf5/objects.hpp's layout), so that no rank
// reads the whole file; and the dats of a distributed mesh written to a checkpoint in global
// numbering (each rank its block, in one collective MPI-IO write where HDF5 has MPI-IO) and read
// back from one, each rank its own elements' rows.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "parloop/core/dat.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/io/hdf5.hpp"
#include "parloop/mpi/distribute.hpp"
#include "parloop/mpi/gather.hpp"
#include "parloop/mpi/global_mesh.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::hdf5 {

// Declares a file's sets, maps and dats in a global mesh of values_from::each_rank, this rank its
// block of each: every rank makes the same declarations in the same order, as for the mesh.
class mesh_reader {
 public:
  mesh_reader(const File& file, mpi::global_mesh& mesh, MPI_Comm comm)
      : file_(file), mesh_(mesh), rank_(mpi::rank_of(comm)), ranks_(mpi::size_of(comm)) {}

  mpi::set_id set(std::string_view name) {
    const hsize_t rows = static_cast<hsize_t>(detail::set_size(file_, name));
    const auto [first, count] = detail::rank_block(rows, rank_, ranks_);
    sets_.push_back({rows, first, count});
    return mesh_.set(static_cast<index_t>(count), std::string(name));
  }

  mpi::map_id map(std::string_view name, mpi::set_id from, mpi::set_id to, int arity) {
    const block b = of(from, name);
    std::vector<index_t> values(b.count * static_cast<std::size_t>(arity));
    detail::read_map_rows(file_, name, b.rows, arity, b.first, b.count, values.data());
    return mesh_.map(from, to, arity, std::move(values), std::string(name));
  }

  template <class T, int Dim>
  mpi::dat_id<T, Dim> dat(std::string_view name, mpi::set_id on) {
    const block b = of(on, name);
    std::vector<T> values(b.count * Dim);
    detail::read_dat_rows(file_, name, b.rows, Dim, scalar_of<T>(), false, b.first, b.count, values.data());
    return mesh_.dat<T, Dim>(on, std::move(values), std::string(name));
  }

 private:
  // A set's rows in the file and this rank's block of them.
  struct block {
    hsize_t rows, first, count;
  };
  block of(mpi::set_id s, std::string_view name) const {
    if (s.index < 0 || static_cast<std::size_t>(s.index) >= sets_.size()) {
      throw argument_error(
          parloop::detail::format("hdf5 mesh_reader: '{}' is on a set this reader did not read", name));
    }
    return sets_[static_cast<std::size_t>(s.index)];
  }
  const File& file_;
  mpi::global_mesh& mesh_;
  int rank_, ranks_;
  std::vector<block> sets_;
};

namespace detail {
template <class T, int Dim>
const parloop::detail::set_distribution& distribution_of(const Dat<T, Dim>& dat, std::string_view call) {
  const parloop::detail::set_distribution* d = dat.set().distribution();
  if (d == nullptr) {
    throw argument_error(parloop::detail::format(
        "hdf5::{}: dat '{}' is not on a distributed set: use the call without a communicator", call, dat.name()));
  }
  return *d;
}

// This rank's elements' rows of a dataset of global rows, in the dat's host order, into `into`.
template <class T, int Dim>
void read_global_rows(const File& file, std::string_view name, const parloop::detail::set_distribution& d,
                      std::span<T> into) {
  const rows_dataset r = open_rows(file, name, parloop::detail::format("dat '{}'", name),
                                   {static_cast<hsize_t>(d.global_size), Dim, scalar_of<T>()});
  const handle space(H5Dget_space(r.dataset.get()), &H5Sclose);
  std::vector<hsize_t> points;
  points.reserve(d.global.size() * Dim * (r.one_dim ? 1 : 2));
  for (const index_t g : d.global) {
    for (int k = 0; k < Dim; ++k) {
      points.push_back(static_cast<hsize_t>(g));
      if (!r.one_dim) points.push_back(static_cast<hsize_t>(k));
    }
  }
  const hsize_t count = d.global.size() * Dim;
  const handle memory(H5Screate_simple(1, &count, nullptr), &H5Sclose);
  quiet_errors quiet;
  herr_t status =
      count == 0 ? H5Sselect_none(space.get()) : H5Sselect_elements(space.get(), H5S_SELECT_SET, count, points.data());
  if (count == 0 && status >= 0) status = H5Sselect_none(memory.get());
  if (status >= 0) {
    status = H5Dread(r.dataset.get(), memory_type(scalar_of<T>()), memory.get(), space.get(), H5P_DEFAULT, into.data());
  }
  if (status < 0) {
    throw file_error(
        parloop::detail::format("{}: dataset '{}' could not be read: {}", file.path(), name, library_says()));
  }
}
}  // namespace detail

#if PARLOOP_HDF5_PARALLEL
// A checkpoint of dats on distributed sets, in global numbering, written by every rank of `comm`
// at once through MPI-IO: each dat's owned values go to the rank whose block of global numbers
// (OP2's split) holds them (mpi::owned_to_blocks), and each rank writes its block in one
// collective write, none holding more than its share. The new file takes its name once every
// rank has closed it whole. Collective: the ranks agree on each step's outcome before the next.
template <class... Dats>
void checkpoint(MPI_Comm comm, const std::string& path, const Dats&... dats) {
  (static_cast<void>(detail::distribution_of(dats, "checkpoint")), ...);
  const int rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
  const std::string writing = path + ".parloop-partial";
  std::string failed;
  const auto all_went_well = [&] {
    int ok = failed.empty() ? 1 : 0;
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    return ok != 0;
  };
  const auto refused = [&] {
    return file_error(
        !failed.empty() ? failed : parloop::detail::format("{}: another rank could not write the checkpoint", path));
  };
  const detail::handle access(H5Pcreate(H5P_FILE_ACCESS), &H5Pclose);
  const detail::handle transfer(H5Pcreate(H5P_DATASET_XFER), &H5Pclose);
  if (H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL) < 0 ||
      H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE) < 0)
    failed = parloop::detail::format("{}: HDF5 cannot write through MPI-IO: {}", path, detail::library_says());
  std::optional<File> file;
  try {
    if (failed.empty()) file.emplace(File::create_collective(writing, access.get()));
  } catch (const error& e) {
    failed = e.message();
  }
  if (!all_went_well()) throw refused();
  auto one = [&](const auto& dat) {
    using dat_type = std::remove_cvref_t<decltype(dat)>;
    using T = typename dat_type::value_type;
    const parloop::detail::set_distribution& d = *dat.set().distribution();
    const auto rows = static_cast<hsize_t>(d.global_size);
    std::vector<index_t> starts(static_cast<std::size_t>(ranks) + 1);
    for (int r = 0; r <= ranks; ++r)
      starts[static_cast<std::size_t>(r)] = static_cast<index_t>(detail::rank_block(rows, r, ranks).first);
    const std::vector<T> block =
        mpi::owned_to_blocks<T>(comm, d.global, d.owned_end, dat.host(), dat_type::dim, starts);
    const auto first = static_cast<hsize_t>(starts[static_cast<std::size_t>(rank)]);
    try {
      detail::write_dat(*file, dat.name(), rows, dat_type::dim, scalar_of<T>(), type_name(scalar_of<T>()), first,
                        static_cast<hsize_t>(starts[static_cast<std::size_t>(rank) + 1]) - first, block.data(),
                        transfer.get());
    } catch (const error& e) {
      failed = e.message();
    }
    if (!all_went_well()) throw refused();
  };
  (one(dats), ...);
  try {
    file->close();
  } catch (const error& e) {
    failed = e.message();
  }
  if (!all_went_well()) throw refused();
  // Every rank has closed it whole: one flushes it to the disk and names it.
  try {
    if (rank == 0) File::name_when_on_disk(writing, path);
  } catch (const error& e) {
    failed = e.message();
  }
  if (!all_went_well()) throw refused();
}
#else
// A checkpoint of dats on distributed sets: their owned values in global numbering, gathered on
// rank 0 of `comm`, which writes a new file (named only once it is whole), where HDF5 is built
// without MPI-IO. Collective.
template <class... Dats>
void checkpoint(MPI_Comm comm, const std::string& path, const Dats&... dats) {
  (static_cast<void>(detail::distribution_of(dats, "checkpoint")), ...);
  const bool root = mpi::rank_of(comm) == 0;
  std::string failed;
  std::optional<File> file;
  try {
    if (root) file.emplace(File::create(path));
  } catch (const error& e) {
    failed = e.message();
  }
  auto one = [&](const auto& dat) {
    using dat_type = std::remove_cvref_t<decltype(dat)>;
    using T = typename dat_type::value_type;
    const std::vector<T> all = mpi::gather(dat);  // every rank takes part
    if (!root || !failed.empty()) return;
    try {
      const hsize_t rows = static_cast<hsize_t>(dat.set().global_size());
      detail::write_dat(*file, dat.name(), rows, dat_type::dim, scalar_of<T>(), type_name(scalar_of<T>()), 0, rows,
                        all.data());
    } catch (const error& e) {
      failed = e.message();
    }
  };
  (one(dats), ...);
  try {
    if (root && failed.empty()) file->close();
  } catch (const error& e) {
    failed = e.message();
  }
  // Every rank learns whether the root wrote it all.
  int ok = failed.empty() ? 1 : 0;
  mpi::check(MPI_Bcast(&ok, 1, MPI_INT, 0, comm), "MPI_Bcast");
  if (ok == 0) {
    throw file_error(root ? failed : parloop::detail::format("{}: rank 0 could not write the checkpoint", path));
  }
}
#endif

// Dats on distributed sets read back from a checkpoint in global numbering, each rank the rows
// of its own elements (halos included), every dataset checked before any dat changes. The ranks
// agree on the outcome: if one cannot read, all throw. Collective.
template <class... Dats>
void restart(MPI_Comm comm, const std::string& path, Dats&... dats) {
  (static_cast<void>(detail::distribution_of(dats, "restart")), ...);
  std::string failed;
  try {
    const File file = File::open(path);
    (static_cast<void>(
         detail::open_rows(file, dats.name(), parloop::detail::format("dat '{}'", dats.name()),
                           {static_cast<hsize_t>(dats.set().global_size()), std::remove_cvref_t<Dats>::dim,
                            scalar_of<typename std::remove_cvref_t<Dats>::value_type>()})),
     ...);
    (detail::read_global_rows<typename std::remove_cvref_t<Dats>::value_type, std::remove_cvref_t<Dats>::dim>(
         file, dats.name(), *dats.set().distribution(), dats.host_view(WRITE)),
     ...);
  } catch (const error& e) {
    failed = e.message();
  }
  int ok = failed.empty() ? 1 : 0;
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (ok == 0) {
    throw file_error(!failed.empty() ? failed
                                     : parloop::detail::format("{}: another rank could not read the checkpoint", path));
  }
}

}  // namespace parloop::hdf5
