// SPDX-License-Identifier: MIT
// OP2's regions of every set on every rank, from the owner of each element: what a rank
// executes, what it imports, in which local order, and the maps in local numbers. Computed from
// the global mesh (every set's size, every map's values) in one process; pure data, no MPI.
//
// For rank r and a set S (maps from S reach targets in other sets):
//  - owned: the elements r owns. Core: those of them whose targets, through every map from S,
//    r owns too -- a loop can run them before any halo arrives.
//  - exec halo: elements of S another rank owns that reach an element r owns through a map. r
//    executes them too, redundantly, so that increments into its owned elements are complete
//    without sending increments back.
//  - non-exec halo: elements of S r neither owns nor executes that an element r executes (owned
//    or exec halo) reaches through a map: r reads their values, imported from their owners.
// Local numbers run core, the rest of owned, exec halo, non-exec halo; each region in global
// order here (a rank then orders each region for locality: mpi/region_order.hpp). A rank imports
// every halo element from its owner, which exports them in the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::mpi {

// A map of the global mesh: `arity` values per element of set `from`, each an element of set `to`
// (sets by their position in the plan's list of sizes).
struct global_map {
  int from = 0;
  int to = 0;
  int arity = 1;
  std::span<const index_t> values;
};

// One set on one rank.
struct rank_set {
  // Local element i is global element global[i].
  std::vector<index_t> global;
  // Where each region ends: core, then the rest of owned, exec halo, non-exec halo (global.size()).
  index_t core_end = 0;
  index_t owned_end = 0;
  index_t exec_end = 0;
  // From each rank, the local positions (halo elements) its message fills, in the order it sends.
  std::vector<std::vector<index_t>> import_from;
  // To each rank, the local positions (owned elements) it is sent, in the order it receives.
  std::vector<std::vector<index_t>> export_to;

  index_t size() const { return static_cast<index_t>(global.size()); }
  friend bool operator==(const rank_set&, const rank_set&) = default;
};

struct rank_plan {
  std::vector<rank_set> sets;
  // Each map in local numbers: `arity` values for each local element of its source set that the
  // rank executes (owned and exec halo), each a local element of its target set.
  std::vector<std::vector<index_t>> maps;
  friend bool operator==(const rank_plan&, const rank_plan&) = default;
};

namespace detail {

inline void check_mesh(std::span<const index_t> set_sizes, std::span<const global_map> maps,
                       std::span<const std::vector<int>> owners, int ranks) {
  if (ranks < 1) throw argument_error(parloop::detail::format("halo plan: at least 1 rank, not {}", ranks));
  if (owners.size() != set_sizes.size()) {
    throw argument_error(
        parloop::detail::format("halo plan: owners of {} sets given for {} sets", owners.size(), set_sizes.size()));
  }
  for (std::size_t s = 0; s < set_sizes.size(); ++s) {
    if (owners[s].size() != static_cast<std::size_t>(set_sizes[s])) {
      throw argument_error(parloop::detail::format("halo plan: set {} has {} elements and {} owners", s, set_sizes[s],
                                                   owners[s].size()));
    }
    for (std::size_t e = 0; e < owners[s].size(); ++e) {
      if (owners[s][e] < 0 || owners[s][e] >= ranks) {
        throw argument_error(parloop::detail::format("halo plan: element {} of set {} is owned by rank {} of {}", e, s,
                                                     owners[s][e], ranks));
      }
    }
  }
  const auto n_sets = static_cast<int>(set_sizes.size());
  for (std::size_t m = 0; m < maps.size(); ++m) {
    const global_map& map = maps[m];
    if (map.from < 0 || map.from >= n_sets || map.to < 0 || map.to >= n_sets || map.arity < 1) {
      throw argument_error(
          parloop::detail::format("halo plan: map {} goes from set {} to set {} with arity {} ({} sets)", m, map.from,
                                  map.to, map.arity, n_sets));
    }
    if (map.values.size() !=
        static_cast<std::size_t>(set_sizes[static_cast<std::size_t>(map.from)]) * static_cast<std::size_t>(map.arity)) {
      throw argument_error(parloop::detail::format("halo plan: map {} has {} values for {} elements of arity {}", m,
                                                   map.values.size(), set_sizes[static_cast<std::size_t>(map.from)],
                                                   map.arity));
    }
    for (std::size_t i = 0; i < map.values.size(); ++i) {
      if (map.values[i] < 0 || map.values[i] >= set_sizes[static_cast<std::size_t>(map.to)]) {
        throw argument_error(parloop::detail::format(
            "halo plan: map {} value {} (element {}, slot {}) is outside set {} of {} elements", m, map.values[i],
            i / static_cast<std::size_t>(map.arity), i % static_cast<std::size_t>(map.arity), map.to,
            set_sizes[static_cast<std::size_t>(map.to)]));
      }
    }
  }
}

// Sorted, without repeats.
inline void sort_unique(std::vector<index_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The local number of `global` in a set whose (global, local) pairs are sorted by global.
inline index_t local_of(const std::vector<std::pair<index_t, index_t>>& sorted, index_t global) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), std::pair<index_t, index_t>{global, 0});
  return it != sorted.end() && it->first == global ? it->second : -1;
}

}  // namespace detail

// Every rank's plan, from the owner of each element of each set (owners[s][e] in [0, ranks)).
inline std::vector<rank_plan> plan_halos(std::span<const index_t> set_sizes, std::span<const global_map> maps,
                                         std::span<const std::vector<int>> owners, int ranks) {
  detail::check_mesh(set_sizes, maps, owners, ranks);
  const std::size_t n_sets = set_sizes.size(), n_ranks = static_cast<std::size_t>(ranks);
  const auto owner = [&](int set, index_t e) {
    return owners[static_cast<std::size_t>(set)][static_cast<std::size_t>(e)];
  };
  // The ranks that execute each element: its owner and the owners of everything it reaches.
  std::vector<std::vector<std::vector<int>>> executing(n_sets);
  std::vector<std::vector<char>> core(n_sets);
  for (std::size_t s = 0; s < n_sets; ++s) {
    executing[s].resize(static_cast<std::size_t>(set_sizes[s]));
    core[s].assign(static_cast<std::size_t>(set_sizes[s]), 1);
    for (index_t e = 0; e < set_sizes[s]; ++e)
      executing[s][static_cast<std::size_t>(e)] = {owner(static_cast<int>(s), e)};
  }
  for (const global_map& m : maps) {
    const auto from = static_cast<std::size_t>(m.from);
    for (index_t e = 0; e < set_sizes[from]; ++e) {
      auto& ranks_of_e = executing[from][static_cast<std::size_t>(e)];
      for (int k = 0; k < m.arity; ++k) {
        const int t_owner = owner(
            m.to,
            m.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(m.arity) + static_cast<std::size_t>(k)]);
        if (t_owner != ranks_of_e.front()) core[from][static_cast<std::size_t>(e)] = 0;
        if (std::find(ranks_of_e.begin(), ranks_of_e.end(), t_owner) == ranks_of_e.end()) ranks_of_e.push_back(t_owner);
      }
    }
  }
  // Regions by rank and set, in global order.
  struct regions {
    std::vector<index_t> core, owned, exec, nonexec;
  };
  std::vector<std::vector<regions>> by_rank(n_ranks, std::vector<regions>(n_sets));
  for (std::size_t s = 0; s < n_sets; ++s) {
    for (index_t e = 0; e < set_sizes[s]; ++e) {
      const auto& ranks_of_e = executing[s][static_cast<std::size_t>(e)];
      regions& home = by_rank[static_cast<std::size_t>(ranks_of_e.front())][s];
      (core[s][static_cast<std::size_t>(e)] ? home.core : home.owned).push_back(e);
      for (std::size_t i = 1; i < ranks_of_e.size(); ++i)
        by_rank[static_cast<std::size_t>(ranks_of_e[i])][s].exec.push_back(e);
    }
  }
  // Non-exec halos: what the elements each rank executes reach and it neither owns nor executes.
  for (const global_map& m : maps) {
    const auto from = static_cast<std::size_t>(m.from), to = static_cast<std::size_t>(m.to);
    for (index_t e = 0; e < set_sizes[from]; ++e) {
      for (const int r : executing[from][static_cast<std::size_t>(e)]) {
        for (int k = 0; k < m.arity; ++k) {
          const index_t t =
              m.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(m.arity) + static_cast<std::size_t>(k)];
          const auto& ranks_of_t = executing[to][static_cast<std::size_t>(t)];
          if (std::find(ranks_of_t.begin(), ranks_of_t.end(), r) == ranks_of_t.end()) {
            by_rank[static_cast<std::size_t>(r)][to].nonexec.push_back(t);
          }
        }
      }
    }
  }
  std::vector<rank_plan> plans(n_ranks);
  // Each rank's (global, local) pairs per set, sorted by global: local numbers of map targets.
  std::vector<std::vector<std::vector<std::pair<index_t, index_t>>>> lookup(
      n_ranks, std::vector<std::vector<std::pair<index_t, index_t>>>(n_sets));
  for (std::size_t r = 0; r < n_ranks; ++r) {
    plans[r].sets.resize(n_sets);
    for (std::size_t s = 0; s < n_sets; ++s) {
      regions& g = by_rank[r][s];
      detail::sort_unique(g.nonexec);
      rank_set& rs = plans[r].sets[s];
      for (const auto* region : {&g.core, &g.owned, &g.exec, &g.nonexec}) {
        rs.global.insert(rs.global.end(), region->begin(), region->end());
      }
      rs.core_end = static_cast<index_t>(g.core.size());
      rs.owned_end = rs.core_end + static_cast<index_t>(g.owned.size());
      rs.exec_end = rs.owned_end + static_cast<index_t>(g.exec.size());
      rs.import_from.assign(n_ranks, {});
      rs.export_to.assign(n_ranks, {});
      for (index_t i = rs.owned_end; i < rs.size(); ++i) {
        rs.import_from[static_cast<std::size_t>(owner(static_cast<int>(s), rs.global[static_cast<std::size_t>(i)]))]
            .push_back(i);
      }
      auto& pairs = lookup[r][s];
      pairs.reserve(rs.global.size());
      for (index_t i = 0; i < rs.size(); ++i) pairs.emplace_back(rs.global[static_cast<std::size_t>(i)], i);
      std::sort(pairs.begin(), pairs.end());
    }
  }
  // Exports mirror imports; maps in local numbers.
  for (std::size_t r = 0; r < n_ranks; ++r) {
    for (std::size_t s = 0; s < n_sets; ++s) {
      const rank_set& importer = plans[r].sets[s];
      for (std::size_t q = 0; q < n_ranks; ++q) {
        auto& exports = plans[q].sets[s].export_to[r];
        for (const index_t i : importer.import_from[q]) {
          exports.push_back(detail::local_of(lookup[q][s], importer.global[static_cast<std::size_t>(i)]));
        }
      }
    }
    for (const global_map& m : maps) {
      const rank_set& from = plans[r].sets[static_cast<std::size_t>(m.from)];
      std::vector<index_t> local;
      local.reserve(static_cast<std::size_t>(from.exec_end) * static_cast<std::size_t>(m.arity));
      for (index_t i = 0; i < from.exec_end; ++i) {
        const auto e = static_cast<std::size_t>(from.global[static_cast<std::size_t>(i)]);
        for (int k = 0; k < m.arity; ++k) {
          local.push_back(
              detail::local_of(lookup[r][static_cast<std::size_t>(m.to)],
                               m.values[e * static_cast<std::size_t>(m.arity) + static_cast<std::size_t>(k)]));
        }
      }
      plans[r].maps.push_back(std::move(local));
    }
  }
  return plans;
}

}  // namespace parloop::mpi
