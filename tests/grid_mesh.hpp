// SPDX-License-Identifier: MIT
// A structured quadrilateral mesh, and the same mesh with every set numbered at random: the
// test of orderings for locality (a random numbering scatters neighbours; a good order brings
// them back within about the grid's width).
#pragma once

#include <algorithm>
#include <numeric>
#include <parloop/config.hpp>
#include <parloop/order/locality_order.hpp>
#include <random>
#include <vector>

#include "random_mesh.hpp"

namespace parloop_test {

// A grid of w x h quadrilateral cells: cell -> 4 nodes, and each pair of cells that share a side
// as an edge -> 2 cells and -> 2 nodes.
struct grid {
  parloop::index_t cells = 0, nodes = 0, edges = 0;
  std::vector<parloop::index_t> cell_nodes, edge_cells, edge_nodes;
};

inline grid make_grid(parloop::index_t w, parloop::index_t h) {
  grid g;
  g.cells = w * h;
  g.nodes = (w + 1) * (h + 1);
  const auto node = [&](parloop::index_t i, parloop::index_t j) { return j * (w + 1) + i; };
  for (parloop::index_t j = 0; j < h; ++j) {
    for (parloop::index_t i = 0; i < w; ++i) {
      g.cell_nodes.insert(g.cell_nodes.end(), {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)});
      if (i + 1 < w) {
        g.edge_cells.insert(g.edge_cells.end(), {j * w + i, j * w + i + 1});
        g.edge_nodes.insert(g.edge_nodes.end(), {node(i + 1, j), node(i + 1, j + 1)});
      }
      if (j + 1 < h) {
        g.edge_cells.insert(g.edge_cells.end(), {j * w + i, (j + 1) * w + i});
        g.edge_nodes.insert(g.edge_nodes.end(), {node(i, j + 1), node(i + 1, j + 1)});
      }
    }
  }
  g.edges = static_cast<parloop::index_t>(g.edge_cells.size() / 2);
  return g;
}

inline std::vector<parloop::index_t> shuffled(parloop::index_t n) {
  std::vector<parloop::index_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), parloop::index_t{0});
  std::shuffle(v.begin(), v.end(), parloop_test::rng());
  return v;
}

// `values` (targets numbered as new_of_old's old) renumbered, rows in `old_of_new` order.
inline std::vector<parloop::index_t> renumbered(const std::vector<parloop::index_t>& values, int arity,
                                                const std::vector<parloop::index_t>& old_of_new,
                                                const std::vector<parloop::index_t>& target_new_of_old) {
  std::vector<parloop::index_t> out;
  for (const parloop::index_t r : old_of_new) {
    for (int j = 0; j < arity; ++j)
      out.push_back(target_new_of_old[static_cast<std::size_t>(values[static_cast<std::size_t>(r) * arity + j])]);
  }
  return out;
}

// The grid with every set numbered at random.
inline grid shuffled_grid(const grid& g) {
  const std::vector<parloop::index_t> cells = shuffled(g.cells), nodes = shuffled(g.nodes), edges = shuffled(g.edges);
  const std::vector<parloop::index_t> new_cells = parloop::detail::inverse_order(cells),
                                      new_nodes = parloop::detail::inverse_order(nodes);
  grid s = g;
  s.cell_nodes = renumbered(g.cell_nodes, 4, cells, new_nodes);
  s.edge_cells = renumbered(g.edge_cells, 2, edges, new_cells);
  s.edge_nodes = renumbered(g.edge_nodes, 2, edges, new_nodes);
  return s;
}

}  // namespace parloop_test
