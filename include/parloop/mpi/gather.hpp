// SPDX-License-Identifier: MIT
// A distributed array back in global numbering: each rank's owned values, placed by their global
// numbers on one rank -- to compare with a serial run, or to write out -- or in blocks of global
// numbers, a block a rank; and the blocks of a mesh given rank by rank, put together on one rank.
#pragma once

#include <mpi.h>

#include <algorithm>
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

// This rank's block of a distributed array in global numbering: the block of rank r is elements
// [starts[r], starts[r + 1]) of the `global_size` (starts has one entry per rank and a last,
// global_size). Each rank sends its owned elements' values (`dim` each; local element i is global
// element global[i], the first `owned` its own) to the rank whose block holds them, and receives
// its block's, in order: a checkpoint's ranks each write their block, none holding more than its
// share. Collective; refused on every rank where the ranks do not own each element exactly once.
template <class T>
std::vector<T> owned_to_blocks(MPI_Comm comm, std::span<const index_t> global, index_t owned, std::span<const T> local,
                               int dim, std::span<const index_t> starts) {
  const int rank = rank_of(comm), ranks = size_of(comm);
  const auto row = static_cast<std::size_t>(dim);
  if (dim < 1 || starts.size() != static_cast<std::size_t>(ranks) + 1 || owned < 0 ||
      static_cast<std::size_t>(owned) > global.size() || local.size() != global.size() * row ||
      !std::is_sorted(starts.begin(), starts.end())) {
    throw argument_error(parloop::detail::format(
        "owned_to_blocks: {} values for {} elements of {}, {} owned, {} block starts for {} ranks", local.size(),
        global.size(), dim, owned, starts.size(), ranks));
  }
  const index_t first = starts[static_cast<std::size_t>(rank)], last = starts[static_cast<std::size_t>(rank) + 1];
  // The owned elements by the rank whose block holds them (a counting sort), numbers and values.
  std::vector<int> to(static_cast<std::size_t>(owned)), send_counts(static_cast<std::size_t>(ranks), 0);
  bool fits = true;
  for (std::size_t i = 0; i < to.size(); ++i) {
    const index_t g = global[i];
    fits = fits && g >= starts.front() && g < starts.back();
    if (!fits) break;
    to[i] = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), g) - starts.begin()) - 1;
    ++send_counts[static_cast<std::size_t>(to[i])];
  }
  std::vector<int> send_offsets(static_cast<std::size_t>(ranks), 0), receive_counts(static_cast<std::size_t>(ranks));
  for (std::size_t r = 1; r < send_offsets.size(); ++r) send_offsets[r] = send_offsets[r - 1] + send_counts[r - 1];
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  std::vector<int> receive_offsets(static_cast<std::size_t>(ranks), 0);
  for (std::size_t r = 1; r < receive_offsets.size(); ++r)
    receive_offsets[r] = receive_offsets[r - 1] + receive_counts[r - 1];
  const long long arriving = receive_offsets.back() + static_cast<long long>(receive_counts.back());
  // Every rank learns whether each sent only numbers of the set and receives its block's count.
  int ok = fits && arriving == last - first ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  const auto refused = [&] {
    return error(parloop::detail::format(
        "owned_to_blocks: the ranks do not own the {} elements of the set exactly once", starts.back()));
  };
  if (ok == 0) throw refused();
  std::vector<index_t> send_numbers(to.size());
  std::vector<T> send_values(to.size() * row);
  std::vector<int> next = send_offsets;
  for (std::size_t i = 0; i < to.size(); ++i) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(to[i])]++);
    send_numbers[at] = global[i];
    std::copy_n(local.begin() + static_cast<std::ptrdiff_t>(i * row), row,
                send_values.begin() + static_cast<std::ptrdiff_t>(at * row));
  }
  std::vector<index_t> numbers(static_cast<std::size_t>(arriving));
  std::vector<T> values(numbers.size() * row);
  check(MPI_Alltoallv(send_numbers.data(), send_counts.data(), send_offsets.data(), MPI_INT32_T, numbers.data(),
                      receive_counts.data(), receive_offsets.data(), MPI_INT32_T, comm),
        "MPI_Alltoallv");
  // Rows travel as one MPI type each, so that the counts stay elements, not bytes.
  MPI_Datatype row_type = MPI_DATATYPE_NULL;
  check(MPI_Type_contiguous(static_cast<int>(row * sizeof(T)), MPI_BYTE, &row_type), "MPI_Type_contiguous");
  check(MPI_Type_commit(&row_type), "MPI_Type_commit");
  const int sent = MPI_Alltoallv(send_values.data(), send_counts.data(), send_offsets.data(), row_type, values.data(),
                                 receive_counts.data(), receive_offsets.data(), row_type, comm);
  MPI_Type_free(&row_type);
  check(sent, "MPI_Alltoallv");
  std::vector<T> block(static_cast<std::size_t>(last - first) * row);
  std::vector<char> placed(static_cast<std::size_t>(last - first), 0);
  ok = 1;
  for (std::size_t i = 0; i < numbers.size() && ok != 0; ++i) {
    const auto at = static_cast<std::size_t>(numbers[i] - first);
    ok = placed[at] == 0 ? 1 : 0;
    placed[at] = 1;
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * row), row,
                block.begin() + static_cast<std::ptrdiff_t>(at * row));
  }
  check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (ok == 0) throw refused();
  return block;
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
