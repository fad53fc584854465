// SPDX-License-Identifier: MIT
// A rank's elements ordered for locality within their regions (mpi/halo_plan.hpp): the rank's
// own mesh -- its sets, halos included, and its maps in local numbers -- ordered as pl::renumber
// orders a mesh on one process (order/locality_order.hpp), and each region's elements sorted by
// that order, so that a mesh numbered at random runs as fast distributed as one numbered
// structurally. Regions stay where they are (a loop still runs core, then the rest), so only the
// rank's own plan changes: its global numbers, its maps, and the local positions it imports into
// and exports from -- the order of each message is kept, so the ranks it exchanges with need not
// know. Pure data, no MPI: each rank orders its own plan, at the same time as the others.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/order/locality_order.hpp"

namespace parloop::mpi {

// Orders `plan`'s elements within their regions for locality, set `first` (a mesh's cells, say)
// by reverse Cuthill-McKee and the others after it. `shapes` gives each of the plan's maps' sets
// and arity (their values are not read). Returns, for each set, its order: the i-th element
// after is the one that was at old_of_new[i] -- a dat's values in the plan's former order
// follow it so.
inline std::vector<std::vector<index_t>> order_regions(rank_plan& plan, std::span<const global_map> shapes, int first) {
  const std::size_t n_sets = plan.sets.size();
  if (shapes.size() != plan.maps.size() || first < 0 || static_cast<std::size_t>(first) >= n_sets) {
    throw argument_error(
        parloop::detail::format("order regions: {} map shapes for a plan of {} maps, first set {} of {}", shapes.size(),
                                plan.maps.size(), first, n_sets));
  }
  parloop::detail::mesh_links mesh;
  for (const rank_set& s : plan.sets) mesh.set_sizes.push_back(s.size());
  for (std::size_t m = 0; m < shapes.size(); ++m) {
    const global_map& g = shapes[m];
    const bool ends_known = g.from >= 0 && static_cast<std::size_t>(g.from) < n_sets && g.to >= 0 &&
                            static_cast<std::size_t>(g.to) < n_sets && g.arity >= 1;
    if (!ends_known ||
        plan.maps[m].size() != static_cast<std::size_t>(plan.sets[static_cast<std::size_t>(g.from)].exec_end) *
                                   static_cast<std::size_t>(g.arity)) {
      throw argument_error(
          parloop::detail::format("order regions: map {} (from set {} to set {}, arity {}) does not fit the plan's "
                                  "{} sets and {} values",
                                  m, g.from, g.to, g.arity, n_sets, plan.maps[m].size()));
    }
    const index_t targets = plan.sets[static_cast<std::size_t>(g.to)].size();
    for (std::size_t i = 0; i < plan.maps[m].size(); ++i) {
      if (plan.maps[m][i] < 0 || plan.maps[m][i] >= targets) {
        throw argument_error(
            parloop::detail::format("order regions: map {} value {} (row {}) is outside set {} of {} elements", m,
                                    plan.maps[m][i], i / static_cast<std::size_t>(g.arity), g.to, targets));
      }
    }
    mesh.maps.push_back({shapes[m].from, shapes[m].to, {plan.maps[m], shapes[m].arity}});
  }
  const std::vector<std::vector<index_t>> locality = parloop::detail::locality_orders(mesh, first);

  std::vector<std::vector<index_t>> old_of_new(n_sets), new_of_old(n_sets);
  for (std::size_t s = 0; s < n_sets; ++s) {
    rank_set& rs = plan.sets[s];
    const std::vector<index_t> rank_in_locality = parloop::detail::inverse_order(locality[s]);
    std::vector<index_t>& order = old_of_new[s];
    order.resize(static_cast<std::size_t>(rs.size()));
    std::iota(order.begin(), order.end(), index_t{0});
    index_t begin = 0;
    for (const index_t end : {rs.core_end, rs.owned_end, rs.exec_end, rs.size()}) {
      std::sort(order.begin() + begin, order.begin() + end, [&](index_t a, index_t b) {
        return rank_in_locality[static_cast<std::size_t>(a)] < rank_in_locality[static_cast<std::size_t>(b)];
      });
      begin = end;
    }
    new_of_old[s] = parloop::detail::inverse_order(order);
    std::vector<index_t> global(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) global[i] = rs.global[static_cast<std::size_t>(order[i])];
    rs.global = std::move(global);
    for (auto* lists : {&rs.import_from, &rs.export_to}) {
      for (std::vector<index_t>& positions : *lists) {
        for (index_t& p : positions) p = new_of_old[s][static_cast<std::size_t>(p)];
      }
    }
  }
  for (std::size_t m = 0; m < shapes.size(); ++m) {
    const auto arity = static_cast<std::size_t>(shapes[m].arity);
    const std::vector<index_t>& rows = old_of_new[static_cast<std::size_t>(shapes[m].from)];
    const std::vector<index_t>& targets = new_of_old[static_cast<std::size_t>(shapes[m].to)];
    const std::vector<index_t>& was = plan.maps[m];
    std::vector<index_t> now(was.size());
    // The map's rows are its source's executed elements, which regions keep first.
    for (std::size_t r = 0; r < was.size() / arity; ++r) {
      const auto from = static_cast<std::size_t>(rows[r]) * arity;
      for (std::size_t k = 0; k < arity; ++k) now[r * arity + k] = targets[static_cast<std::size_t>(was[from + k])];
    }
    plan.maps[m] = std::move(now);
  }
  return old_of_new;
}

}  // namespace parloop::mpi
