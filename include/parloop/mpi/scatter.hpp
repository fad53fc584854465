// SPDX-License-Identifier: MIT
// Every rank's plan made on one rank (from the global mesh it read) and sent to its rank: a plan
// travels as one message of index_t words -- for each set its region ends, numbering, imports and
// exports, then each local map -- which the receiver reads back with every length checked. Then
// each dat's values, in the order of each rank's plan.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

namespace detail {

inline void put_list(std::vector<index_t>& out, const std::vector<index_t>& list) {
  if (list.size() > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    throw error(parloop::detail::format("a halo plan's list of {} entries is too long to send", list.size()));
  }
  out.push_back(static_cast<index_t>(list.size()));
  out.insert(out.end(), list.begin(), list.end());
}

inline std::vector<index_t> plan_words(const rank_plan& p) {
  std::vector<index_t> out{static_cast<index_t>(p.sets.size())};
  for (const rank_set& s : p.sets) {
    out.insert(out.end(), {s.core_end, s.owned_end, s.exec_end, static_cast<index_t>(s.import_from.size())});
    put_list(out, s.global);
    for (const auto& l : s.import_from) put_list(out, l);
    for (const auto& l : s.export_to) put_list(out, l);
  }
  out.push_back(static_cast<index_t>(p.maps.size()));
  for (const auto& m : p.maps) put_list(out, m);
  return out;
}

// Reads words as plan_words wrote them; a message that does not parse is an error, not a plan.
class word_reader {
 public:
  explicit word_reader(const std::vector<index_t>& words) : words_(words) {}
  index_t word() {
    if (at_ >= words_.size())
      throw error(parloop::detail::format("a halo plan message ends after {} words", words_.size()));
    return words_[at_++];
  }
  std::vector<index_t> list() {
    const index_t n = word();
    if (n < 0 || static_cast<std::size_t>(n) > words_.size() - at_) {
      throw error(
          parloop::detail::format("a halo plan message holds a list of {} at word {} of {}", n, at_, words_.size()));
    }
    std::vector<index_t> out(words_.begin() + static_cast<std::ptrdiff_t>(at_),
                             words_.begin() + static_cast<std::ptrdiff_t>(at_) + n);
    at_ += static_cast<std::size_t>(n);
    return out;
  }
  bool done() const { return at_ == words_.size(); }

 private:
  const std::vector<index_t>& words_;
  std::size_t at_ = 0;
};

inline rank_plan plan_from_words(const std::vector<index_t>& words) {
  word_reader in(words);
  rank_plan p;
  const index_t sets = in.word();
  for (index_t s = 0; s < sets; ++s) {
    rank_set rs;
    rs.core_end = in.word();
    rs.owned_end = in.word();
    rs.exec_end = in.word();
    const index_t ranks = in.word();
    rs.global = in.list();
    if (!(0 <= rs.core_end && rs.core_end <= rs.owned_end && rs.owned_end <= rs.exec_end && rs.exec_end <= rs.size()) ||
        ranks < 0) {
      throw error(parloop::detail::format("a halo plan message's set {} has regions ending at {}, {}, {} of {}", s,
                                          rs.core_end, rs.owned_end, rs.exec_end, rs.size()));
    }
    for (index_t q = 0; q < ranks; ++q) rs.import_from.push_back(in.list());
    for (index_t q = 0; q < ranks; ++q) rs.export_to.push_back(in.list());
    p.sets.push_back(std::move(rs));
  }
  const index_t maps = in.word();
  for (index_t m = 0; m < maps; ++m) p.maps.push_back(in.list());
  if (!in.done()) throw error("a halo plan message has words after its plan");
  return p;
}

// The places a received plan's lists name lie where they must: imports in the halo, exports
// among the owned, map values among the local elements of some set -- a damaged message is an
// error here, not an access out of bounds later.
inline void check_received(const rank_plan& p, int ranks) {
  index_t largest = 0;
  for (std::size_t s = 0; s < p.sets.size(); ++s) {
    const rank_set& rs = p.sets[s];
    largest = std::max(largest, rs.size());
    if (rs.import_from.size() != static_cast<std::size_t>(ranks)) {
      throw error(parloop::detail::format("a halo plan message's set {} has lists for {} ranks, not {}", s,
                                          rs.import_from.size(), ranks));
    }
    for (std::size_t q = 0; q < rs.import_from.size(); ++q) {
      for (const index_t i : rs.import_from[q]) {
        if (i < rs.owned_end || i >= rs.size())
          throw error(parloop::detail::format("a halo plan message imports into place {} of set {}", i, s));
      }
      for (const index_t i : rs.export_to[q]) {
        if (i < 0 || i >= rs.owned_end)
          throw error(parloop::detail::format("a halo plan message exports place {} of set {}", i, s));
      }
    }
  }
  for (std::size_t m = 0; m < p.maps.size(); ++m) {
    for (const index_t v : p.maps[m]) {
      if (v < 0 || v >= largest) throw error(parloop::detail::format("a halo plan message's map {} holds {}", m, v));
    }
  }
}

inline constexpr int plan_tag = 0x504c;  // "PL"
static_assert(sizeof(index_t) == sizeof(std::int32_t), "plans travel as MPI_INT32_T words");

}  // namespace detail

// On `root`, `plans` holds every rank's plan (plan_halos of the communicator's size); elsewhere
// it is not read. Returns this rank's plan. Collective over `comm`.
inline rank_plan scatter_plans(MPI_Comm comm, const std::vector<rank_plan>& plans, int root = 0) {
  const int rank = rank_of(comm), size = size_of(comm);
  // The root says first whether it has a plan for every rank: none is left waiting for one.
  std::vector<std::vector<index_t>> messages;
  std::string problem;
  if (rank == root) {
    if (plans.size() != static_cast<std::size_t>(size)) {
      problem = parloop::detail::format("{} plans for {} ranks", plans.size(), size);
    }
    for (std::size_t r = 0; problem.empty() && r < plans.size(); ++r) {
      messages.push_back(detail::plan_words(plans[r]));
      if (messages.back().size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        problem = parloop::detail::format("rank {}'s plan of {} words is too large for one message", r,
                                          messages.back().size());
      }
    }
  }
  int ok = problem.empty() ? 1 : 0;
  check(MPI_Bcast(&ok, 1, MPI_INT, root, comm), "MPI_Bcast");
  if (ok == 0) {
    throw argument_error(rank == root
                             ? "scatter_plans: " + problem
                             : parloop::detail::format("scatter_plans: rank {} could not send the plans", root));
  }
  if (rank == root) {
    for (int r = 0; r < size; ++r) {
      if (r == root) continue;
      const std::vector<index_t>& words = messages[static_cast<std::size_t>(r)];
      check(MPI_Send(words.data(), static_cast<int>(words.size()), MPI_INT32_T, r, detail::plan_tag, comm), "MPI_Send");
    }
    return plans[static_cast<std::size_t>(root)];
  }
  MPI_Status status;
  check(MPI_Probe(root, detail::plan_tag, comm, &status), "MPI_Probe");
  int count = 0;
  check(MPI_Get_count(&status, MPI_INT32_T, &count), "MPI_Get_count");
  if (count == MPI_UNDEFINED || count < 0) throw error("scatter_plans: a plan message that is not whole words");
  std::vector<index_t> words(static_cast<std::size_t>(count));
  check(MPI_Recv(words.data(), count, MPI_INT32_T, root, detail::plan_tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  rank_plan mine = detail::plan_from_words(words);
  detail::check_received(mine, size);
  return mine;
}

// Each rank's values of a dat on set `set`, in the plan's order, from the root's global values
// (`width` bytes per element).
inline std::vector<std::byte> scatter_values(MPI_Comm comm, const std::vector<rank_plan>& plans, int set,
                                             std::span<const std::byte> values, std::size_t width,
                                             const std::vector<index_t>& sizes, int root, const std::string& name) {
  const int rank = rank_of(comm);
  std::vector<std::byte> packed;
  std::vector<int> counts, offsets;
  int ok = 1;
  if (rank == root) {
    std::size_t total = 0;
    for (const rank_plan& p : plans) {
      const auto bytes = p.sets[static_cast<std::size_t>(set)].global.size() * width;
      ok = ok != 0 && total + bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max()) ? 1 : 0;
      counts.push_back(static_cast<int>(bytes));
      offsets.push_back(static_cast<int>(total));
      total += bytes;
    }
    if (ok != 0) {
      packed.resize(total);
      std::byte* out = packed.data();
      for (const rank_plan& p : plans) {
        const std::vector<index_t>& global = p.sets[static_cast<std::size_t>(set)].global;
        parloop::detail::gather_rows(out, values.data(), width, global);
        out += global.size() * width;
      }
    }
  }
  check(MPI_Bcast(&ok, 1, MPI_INT, root, comm), "MPI_Bcast");
  if (ok == 0) {
    throw argument_error(
        parloop::detail::format("distribute: dat '{}' of {} elements of {} bytes is too large to send in one "
                                "message",
                                name, sizes[static_cast<std::size_t>(set)], width));
  }
  int mine = 0;
  check(MPI_Scatter(counts.data(), 1, MPI_INT, &mine, 1, MPI_INT, root, comm), "MPI_Scatter");
  std::vector<std::byte> out(static_cast<std::size_t>(mine));
  check(MPI_Scatterv(packed.data(), counts.data(), offsets.data(), MPI_BYTE, out.data(), mine, MPI_BYTE, root, comm),
        "MPI_Scatterv");
  return out;
}

}  // namespace parloop::mpi
