// SPDX-License-Identifier: MIT
// The owner of every element of every set, from a partition of one set (as OP2 partitions one
// set and derives the others): an element that maps to an owned set goes with the owner of its
// first target (an edge with its first cell); an element only reached from an owned set goes
// with the lowest rank of the elements that reach it (a node with its cells); an element neither
// gets a share of its set by position. Derivations through maps from a set come first, then
// through maps into it, until every set has owners.
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
#include "parloop/mpi/graph.hpp"
#include "parloop/mpi/halo_plan.hpp"

namespace parloop::mpi {

inline std::vector<std::vector<int>> derive_owners(std::span<const index_t> set_sizes, std::span<const global_map> maps,
                                                   int partitioned, std::vector<int> owners_of_partitioned, int ranks) {
  const std::size_t n_sets = set_sizes.size();
  if (partitioned < 0 || static_cast<std::size_t>(partitioned) >= n_sets) {
    throw argument_error(
        parloop::detail::format("derive_owners: set {} is not one of the {} sets", partitioned, n_sets));
  }
  std::vector<std::vector<int>> owners(n_sets);
  owners[static_cast<std::size_t>(partitioned)] = std::move(owners_of_partitioned);
  // The partition and the maps are checked as a plan checks them; sets not derived yet pass as
  // owned by rank 0 meanwhile.
  {
    std::vector<std::vector<int>> checked(n_sets);
    for (std::size_t s = 0; s < n_sets; ++s) {
      checked[s] = s == static_cast<std::size_t>(partitioned)
                       ? owners[s]
                       : std::vector<int>(static_cast<std::size_t>(set_sizes[s]), 0);
    }
    detail::check_mesh(set_sizes, maps, checked, ranks);
  }
  const auto known = [&](int s) {
    return !owners[static_cast<std::size_t>(s)].empty() || set_sizes[static_cast<std::size_t>(s)] == 0;
  };
  bool derived = true;
  while (derived) {
    derived = false;
    // An element with the owner of its first target.
    for (const global_map& m : maps) {
      if (known(m.from) || !known(m.to)) continue;
      auto& from = owners[static_cast<std::size_t>(m.from)];
      from.resize(static_cast<std::size_t>(set_sizes[static_cast<std::size_t>(m.from)]));
      for (std::size_t e = 0; e < from.size(); ++e) {
        from[e] = owners[static_cast<std::size_t>(m.to)]
                        [static_cast<std::size_t>(m.values[e * static_cast<std::size_t>(m.arity)])];
      }
      derived = true;
    }
    if (derived) continue;
    // An element with the lowest rank among the elements that reach it.
    for (const global_map& m : maps) {
      if (!known(m.from) || known(m.to)) continue;
      auto& to = owners[static_cast<std::size_t>(m.to)];
      to.assign(static_cast<std::size_t>(set_sizes[static_cast<std::size_t>(m.to)]), ranks);
      const auto& from = owners[static_cast<std::size_t>(m.from)];
      for (std::size_t i = 0; i < m.values.size(); ++i) {
        int& o = to[static_cast<std::size_t>(m.values[i])];
        o = std::min(o, from[i / static_cast<std::size_t>(m.arity)]);
      }
      // Reached by nothing: a share by position.
      const std::vector<int> by_position = shares_by_position(static_cast<index_t>(to.size()), ranks);
      for (std::size_t t = 0; t < to.size(); ++t) {
        if (to[t] == ranks) to[t] = by_position[t];
      }
      derived = true;
      break;
    }
  }
  // Sets no map joins to the partitioned one: shares by position.
  for (std::size_t s = 0; s < n_sets; ++s) {
    if (owners[s].empty()) owners[s] = shares_by_position(set_sizes[s], ranks);
  }
  return owners;
}

}  // namespace parloop::mpi
