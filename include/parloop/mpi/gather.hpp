// SPDX-License-Identifier: MIT
// A distributed array back in global numbering: each rank's owned values, placed by their global
// numbers on one rank -- to compare with a serial run, or to write out; and the blocks of a mesh
// given rank by rank, put together on one rank.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

// On `root`, the `global_size` elements' values (`dim` each) from the ranks that own them; empty
// elsewhere. `local` is this rank's array over a set whose local element i is global element
// global[i] and whose first `owned` elements this rank owns. Collective.
template <class T>
std::vector<T> gather_owned(MPI_Comm comm, std::span<const index_t> global, index_t owned, std::span<const T> local,
                            int dim, index_t global_size, int root = 0) {
  if (dim < 1 || local.size() != global.size() * static_cast<std::size_t>(dim) || owned < 0 ||
      static_cast<std::size_t>(owned) > global.size()) {
    throw argument_error(parloop::detail::format("gather_owned: {} values for {} elements of {}, {} owned",
                                                 local.size(), global.size(), dim, owned));
  }
  const int rank = rank_of(comm), size = size_of(comm);
  const auto width = static_cast<std::size_t>(dim) * sizeof(T);
  std::vector<int> counts(static_cast<std::size_t>(size));
  int ok = 1;
  check(MPI_Gather(&owned, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm), "MPI_Gather");
  std::vector<int> index_offsets, byte_counts, byte_offsets;
  std::vector<index_t> indices;
  std::vector<unsigned char> bytes;
  if (rank == root) {
    long long total = 0;
    for (const int c : counts) {
      index_offsets.push_back(static_cast<int>(total));
      byte_counts.push_back(static_cast<int>(static_cast<std::size_t>(c) * width));
      byte_offsets.push_back(static_cast<int>(static_cast<std::size_t>(total) * width));
      total += c;
    }
    ok = total == global_size &&
         static_cast<std::size_t>(total) * width <= static_cast<std::size_t>(std::numeric_limits<int>::max());
    if (ok) {
      indices.resize(static_cast<std::size_t>(total));
      bytes.resize(static_cast<std::size_t>(total) * width);
    }
  }
  // Every rank learns whether the root can take it all: none is left waiting for the rest.
  check(MPI_Bcast(&ok, 1, MPI_INT, root, comm), "MPI_Bcast");
  if (ok == 0) {
    throw error(parloop::detail::format(
        "gather_owned: the ranks do not own the {} elements of the set exactly once ({} bytes each)", global_size,
        width));
  }
  check(MPI_Gatherv(global.data(), owned, MPI_INT32_T, indices.data(), counts.data(), index_offsets.data(), MPI_INT32_T,
                    root, comm),
        "MPI_Gatherv");
  check(MPI_Gatherv(local.data(), static_cast<int>(static_cast<std::size_t>(owned) * width), MPI_BYTE, bytes.data(),
                    byte_counts.data(), byte_offsets.data(), MPI_BYTE, root, comm),
        "MPI_Gatherv");
  std::vector<T> out;
  if (rank != root) return out;
  out.resize(static_cast<std::size_t>(global_size) * static_cast<std::size_t>(dim));
  std::vector<char> placed(static_cast<std::size_t>(global_size), 0);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const index_t g = indices[i];
    if (g < 0 || g >= global_size || placed[static_cast<std::size_t>(g)] != 0) {
      throw error(parloop::detail::format("gather_owned: element {} of a set of {} arrived {}", g, global_size,
                                          g < 0 || g >= global_size ? "out of range" : "twice"));
    }
    placed[static_cast<std::size_t>(g)] = 1;
    std::memcpy(&out[static_cast<std::size_t>(g) * static_cast<std::size_t>(dim)], &bytes[i * width], width);
  }
  return out;
}

// On `root`, every rank's `mine` one after another in rank order (empty elsewhere): the blocks of
// a mesh given rank by rank, put together. Collective; refused on every rank where the whole would
// not fit one message.
inline std::vector<std::byte> gather_blocks(MPI_Comm comm, std::span<const std::byte> mine, int root,
                                            const std::string& what) {
  const int rank = rank_of(comm), size = size_of(comm);
  const auto count = static_cast<long long>(mine.size());
  std::vector<long long> counts(rank == root ? static_cast<std::size_t>(size) : 0);
  check(MPI_Gather(&count, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, root, comm), "MPI_Gather");
  long long total = 0;
  std::vector<int> ints, offsets;
  for (const long long c : counts) {
    total += c;
    if (total > std::numeric_limits<int>::max()) break;
    offsets.push_back(static_cast<int>(total - c));
    ints.push_back(static_cast<int>(c));
  }
  int ok = rank != root || total <= std::numeric_limits<int>::max() ? 1 : 0;
  check(MPI_Bcast(&ok, 1, MPI_INT, root, comm), "MPI_Bcast");
  if (ok == 0)
    throw argument_error(
        parloop::detail::format("distribute: the ranks' shares of {} are too large for one message", what));
  std::vector<std::byte> out(static_cast<std::size_t>(total));
  check(MPI_Gatherv(mine.data(), static_cast<int>(count), MPI_BYTE, out.data(), ints.data(), offsets.data(), MPI_BYTE,
                    root, comm),
        "MPI_Gatherv");
  return out;
}

// The same over a plan's set.
template <class T>
std::vector<T> gather_owned(MPI_Comm comm, const rank_set& set, std::span<const T> local, int dim, index_t global_size,
                            int root = 0) {
  return gather_owned<T>(comm, set.global, set.owned_end, local, dim, global_size, root);
}

}  // namespace parloop::mpi
