// SPDX-License-Identifier: MIT
// An Airfoil mesh (examples/airfoil/mesh.hpp) in another numbering: each set's elements in an
// order of its own, the maps between them translated -- what shuffle_mesh and order_mesh write.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <parloop/order/locality_order.hpp>

#include "../examples/airfoil/mesh.hpp"

namespace mesh_orders {

using parloop::index_t;

// Each set's order, old_of_new: the i-th element of the copy is element old_of_new[i] of the
// original.
struct set_orders {
  std::vector<index_t> nodes, cells, edges, bedges;
};

// Rows of `width` values moved to their new places; with `targets`, each value renumbered too.
template <class T>
std::vector<T> moved(const std::vector<T>& rows, std::size_t width, const std::vector<index_t>& old_of_new,
                     const std::vector<index_t>* targets = nullptr) {
  std::vector<T> out;
  out.reserve(rows.size());
  for (const index_t r : old_of_new) {
    for (std::size_t j = 0; j < width; ++j) {
      const T v = rows[static_cast<std::size_t>(r) * width + j];
      if constexpr (std::is_same_v<T, index_t>)
        out.push_back(targets != nullptr ? (*targets)[static_cast<std::size_t>(v)] : v);
      else
        out.push_back(v);
    }
  }
  return out;
}

inline airfoil::mesh reordered(const airfoil::mesh& m, const set_orders& o) {
  const std::vector<index_t> new_node = parloop::detail::inverse_order(o.nodes),
                             new_cell = parloop::detail::inverse_order(o.cells);
  airfoil::mesh s = m;
  s.x = moved(m.x, 2, o.nodes);
  s.cell = moved(m.cell, 4, o.cells, &new_node);
  s.edge = moved(m.edge, 2, o.edges, &new_node);
  s.ecell = moved(m.ecell, 2, o.edges, &new_cell);
  s.bedge = moved(m.bedge, 2, o.bedges, &new_node);
  s.becell = moved(m.becell, 1, o.bedges, &new_cell);
  s.bound = moved(m.bound, 1, o.bedges);
  return s;
}

// The mesh as the orderings see it (order/locality_order.hpp), its maps in the order the
// example's handles declare them: sets 0 nodes, 1 edges, 2 bedges, 3 cells.
inline parloop::detail::mesh_links links(const airfoil::mesh& m) {
  parloop::detail::mesh_links l;
  l.set_sizes = {m.nnode, m.nedge, m.nbedge, m.ncell};
  l.maps = {
      {1, 0, {m.edge, 2}}, {1, 3, {m.ecell, 2}}, {2, 0, {m.bedge, 2}}, {2, 3, {m.becell, 1}}, {3, 0, {m.cell, 4}}};
  return l;
}

// Every set's order from the mesh's orderings, sets as links() numbers them.
inline set_orders from_sets(std::vector<std::vector<index_t>> o) {
  return {std::move(o[0]), std::move(o[3]), std::move(o[1]), std::move(o[2])};
}

}  // namespace mesh_orders
