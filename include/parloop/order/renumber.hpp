// SPDX-License-Identifier: MIT
// pl::renumber(cells): loops over a mesh's sets run, from then on, in an order that keeps
// neighbours near each other in memory (order/locality_order.hpp), whatever order the mesh's
// generator numbered them in -- while everything the user reads or writes by index stays in the
// numbering the user declared: dat views, values given to new dats and maps, Map::values, the
// elements errors name. Each set keeps both numberings; maps and dats on the sets are reordered
// in place, once.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/order/locality_order.hpp"

namespace parloop {

namespace detail {

// `first` and every set linked to it through maps, and those maps, first found first.
inline void linked_sets(const Set& first, std::vector<Set>& sets, std::vector<std::shared_ptr<map_state>>& maps) {
  sets = {first};
  for (std::size_t q = 0; q < sets.size(); ++q) {
    for (const std::weak_ptr<map_state>& w : sets[q].state().maps) {
      std::shared_ptr<map_state> m = w.lock();
      if (!m || std::find(maps.begin(), maps.end(), m) != maps.end()) continue;
      maps.push_back(m);
      for (const Set* s : {&m->from, &m->to}) {
        if (std::find(sets.begin(), sets.end(), *s) == sets.end()) sets.push_back(*s);
      }
    }
  }
}

inline int index_of(const std::vector<Set>& sets, const Set& s) {
  return static_cast<int>(std::find(sets.begin(), sets.end(), s) - sets.begin());
}

}  // namespace detail

// Orders `first` (a mesh's cells, say) by reverse Cuthill-McKee over the graph its maps make, and
// every set linked to it through maps after it (edges by their cells, nodes by first touch): see
// order/locality_order.hpp. Loops over these sets run in the new order from then on, on every
// backend; views, new dats and maps, Map::values and errors keep the user's numbering. Called
// again, it orders them again from the current order. A loop over part of a renumbered set
// (pl::range) is refused, since the user's numbers are not a range of the loops' order.
// Distributed sets are ordered by pl::mpi::distributed_mesh, not here.
inline void renumber(const Set& first) {
  std::vector<Set> sets;
  std::vector<std::shared_ptr<detail::map_state>> maps;
  detail::linked_sets(first, sets, maps);
  for (const Set& s : sets) {
    if (s.distribution() != nullptr) {
      throw argument_error(
          parloop::detail::format("pl::renumber: set '{}' is distributed over ranks, and a distributed set's "
                                  "elements are ordered by pl::mpi::distributed_mesh",
                                  s.name()));
    }
    // An extruded set's entities are numbered column by column, after its base's elements.
    if (s.extruded() || s.state().extruded_over) {
      throw argument_error(
          parloop::detail::format("pl::renumber: set '{}' is {}, whose entities are numbered column by column "
                                  "after the base set's elements as the user numbers them; extruded meshes are "
                                  "not renumbered yet (a base stays one after its extruded sets have gone)",
                                  s.name(), s.extruded() ? "an extruded set" : "the base of an extruded set"));
    }
  }
  detail::mesh_links mesh;
  for (const Set& s : sets) mesh.set_sizes.push_back(s.size());
  for (const std::shared_ptr<detail::map_state>& m : maps) {
    mesh.maps.push_back({detail::index_of(sets, m->from), detail::index_of(sets, m->to), {m->values, m->arity}});
  }
  const std::vector<std::vector<index_t>> orders = detail::locality_orders(mesh, 0);
  std::vector<std::vector<index_t>> new_of_old;
  for (const std::vector<index_t>& o : orders) new_of_old.push_back(detail::inverse_order(o));

  for (const std::shared_ptr<detail::map_state>& m : maps) {
    m->reorder(orders[static_cast<std::size_t>(detail::index_of(sets, m->from))],
               new_of_old[static_cast<std::size_t>(detail::index_of(sets, m->to))]);
  }
  detail::device_memory* device = first.runtime().state()->memory;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    detail::set_state& s = sets[i].state();
    const std::vector<index_t>& order = orders[i];
    auto user_of_loop = std::make_shared<std::vector<index_t>>(order.size());
    for (std::size_t e = 0; e < order.size(); ++e) {
      const auto was = static_cast<std::size_t>(order[e]);
      (*user_of_loop)[e] = s.user_of_loop ? (*s.user_of_loop)[was] : static_cast<index_t>(was);
    }
    for (const std::weak_ptr<detail::mirrored_array>& w : s.arrays) {
      if (const std::shared_ptr<detail::mirrored_array> a = w.lock()) a->reorder(order, user_of_loop, device);
    }
    std::erase_if(s.arrays, [](const std::weak_ptr<detail::mirrored_array>& w) { return w.expired(); });
    std::erase_if(s.maps, [](const std::weak_ptr<detail::map_state>& w) { return w.expired(); });
    s.loop_of_user = std::make_shared<const std::vector<index_t>>(detail::inverse_order(*user_of_loop));
    s.user_of_loop = std::move(user_of_loop);
  }
}

}  // namespace parloop
