// SPDX-License-Identifier: MIT
// A random mesh of cells, edges and nodes for the distribution tests, and a loop over its edges
// that increments cells through a map -- run on the whole mesh, or on one rank's plan -- whose
// integer sums are exact in any order.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <parloop/mpi/halo_plan.hpp>

#include "random_mesh.hpp"

namespace parloop_test {

// Sets: 0 cells, 1 edges, 2 nodes; edges reach 2 cells and 2 nodes, cells 3 nodes.
struct mesh {
  std::vector<parloop::index_t> sizes;
  std::vector<parloop::index_t> edge_cells, edge_nodes, cell_nodes;
  std::vector<parloop::mpi::global_map> maps() const {
    return {{1, 0, 2, edge_cells}, {1, 2, 2, edge_nodes}, {0, 2, 3, cell_nodes}};
  }
};

inline mesh random_mesh(int cells, int edges, int nodes) {
  return {{cells, edges, nodes}, random_map(edges, cells, 2), random_map(edges, nodes, 2), random_map(cells, nodes, 3)};
}

// Owners of every element of every set of m drawn from `rng`, none for the last of several ranks
// (a rank that owns nothing).
inline std::vector<std::vector<int>> random_owners(const mesh& m, int ranks, std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, ranks > 1 ? ranks - 2 : 0);
  std::vector<std::vector<int>> out(m.sizes.size());
  for (std::size_t s = 0; s < m.sizes.size(); ++s) {
    for (parloop::index_t e = 0; e < m.sizes[s]; ++e) out[s].push_back(pick(rng));
  }
  return out;
}

// Each of `edges` edges adds 3 a + b of its nodes' values (a, b) into its first cell and takes
// twice that from its second; edge_cells and edge_nodes in the numbering of `cells` and `nodes`.
inline void edge_sums(std::size_t edges, const std::vector<parloop::index_t>& edge_cells,
                      const std::vector<parloop::index_t>& edge_nodes, const std::vector<std::int64_t>& nodes,
                      std::vector<std::int64_t>& cells) {
  for (std::size_t e = 0; e < edges; ++e) {
    const std::int64_t v =
        nodes[static_cast<std::size_t>(edge_nodes[2 * e])] * 3 + nodes[static_cast<std::size_t>(edge_nodes[2 * e + 1])];
    cells[static_cast<std::size_t>(edge_cells[2 * e])] += v;
    cells[static_cast<std::size_t>(edge_cells[2 * e + 1])] -= 2 * v;
  }
}

// The loop on the whole mesh.
inline std::vector<std::int64_t> serial_edge_sums(const mesh& m, const std::vector<std::int64_t>& nodes) {
  std::vector<std::int64_t> cells(static_cast<std::size_t>(m.sizes[0]), 0);
  edge_sums(static_cast<std::size_t>(m.sizes[1]), m.edge_cells, m.edge_nodes, nodes, cells);
  return cells;
}

// The loop on one rank: over its owned and exec halo edges, from its local nodes (halo included).
inline std::vector<std::int64_t> rank_edge_sums(const parloop::mpi::rank_plan& p,
                                                const std::vector<std::int64_t>& nodes) {
  std::vector<std::int64_t> cells(static_cast<std::size_t>(p.sets[0].size()), 0);
  edge_sums(static_cast<std::size_t>(p.sets[1].exec_end), p.maps[0], p.maps[1], nodes, cells);
  return cells;
}

}  // namespace parloop_test
