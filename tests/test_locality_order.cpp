// SPDX-License-Identifier: MIT
// Orderings for locality (order/locality_order.hpp): a structured quadrilateral mesh numbered at
// random, ordered again, must have its neighbours' numbers close -- the bandwidth of a grid
// W cells wide comes back near W -- and every order must be a permutation; the follow-on orders
// worked by hand.
#include <catch2/catch.hpp>

#include <parloop/order/locality_order.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "grid_mesh.hpp"

namespace {

using parloop::index_t;
namespace d = parloop::detail;
using parloop_test::grid;
using parloop_test::make_grid;
using parloop_test::renumbered;
using parloop_test::shuffled_grid;

bool is_permutation_of(const std::vector<index_t>& order, index_t n) {
  std::vector<index_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<index_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), index_t{0});
  return sorted == all;
}

// The largest difference between the numbers of two cells of one edge.
index_t bandwidth(const std::vector<index_t>& edge_cells, const std::vector<index_t>& new_of_old) {
  index_t widest = 0;
  for (std::size_t e = 0; e + 1 < edge_cells.size(); e += 2) {
    widest = std::max(widest, std::abs(new_of_old[static_cast<std::size_t>(edge_cells[e])] -
                                       new_of_old[static_cast<std::size_t>(edge_cells[e + 1])]));
  }
  return widest;
}

}  // namespace

TEST_CASE("reverse Cuthill-McKee brings a randomly numbered grid's bandwidth back to about its width", "[locality]") {
  const index_t w = 40, h = 25;
  const grid g = shuffled_grid(make_grid(w, h));
  std::vector<index_t> identity(static_cast<std::size_t>(g.cells));
  std::iota(identity.begin(), identity.end(), index_t{0});
  REQUIRE(bandwidth(g.edge_cells, identity) > 10 * w);  // the test means something

  const d::map_rows into{g.edge_cells, 2};
  const d::adjacency adj = d::graph_through(g.cells, {&into, 1}, {});
  CHECK(adj.neighbours.size() == 2 * static_cast<std::size_t>(g.edges));
  const std::vector<index_t> order = d::reverse_cuthill_mckee(adj);
  REQUIRE(is_permutation_of(order, g.cells));
  // From a corner, breadth first, the levels are the grid's diagonals: at most min(w, h) + 1 wide.
  CHECK(bandwidth(g.edge_cells, d::inverse_order(order)) <= std::min(w, h) + 1);

  SECTION("cells that share nodes, where no map gives pairs of cells") {
    const std::pair<d::map_rows, index_t> out{d::map_rows{g.cell_nodes, 4}, g.nodes};
    const d::adjacency by_nodes = d::graph_through(g.cells, {}, {&out, 1});
    // Interior cells have 8 neighbours: 4 by sides, 4 by corners.
    std::size_t most = 0;
    for (index_t v = 0; v < by_nodes.size(); ++v) most = std::max(most, by_nodes.degree(v));
    CHECK(most == 8);
    const std::vector<index_t> o = d::reverse_cuthill_mckee(by_nodes);
    REQUIRE(is_permutation_of(o, g.cells));
    CHECK(bandwidth(g.edge_cells, d::inverse_order(o)) <= 2 * (std::min(w, h) + 1));
  }
}

TEST_CASE("reverse Cuthill-McKee orders each component of a graph, isolated vertices included", "[locality]") {
  // Two chains, 0-2-4 and 1-3, and vertex 5 alone.
  const std::vector<index_t> pairs = {0, 2, 2, 4, 1, 3};
  const d::map_rows rows{pairs, 2};
  const std::vector<index_t> order = d::reverse_cuthill_mckee(d::graph_through(6, {&rows, 1}, {}));
  REQUIRE(is_permutation_of(order, 6));
  const std::vector<index_t> at = d::inverse_order(order);
  // Each chain's vertices are consecutive, its middle one between its ends.
  CHECK(std::abs(at[0] - at[4]) == 2);
  CHECK(std::abs(at[2] - at[0]) == 1);
  CHECK(std::abs(at[1] - at[3]) == 1);
  CHECK(d::reverse_cuthill_mckee(d::adjacency{}).empty());
}

TEST_CASE("sets that map into an ordered set follow it by their targets, sets it maps into by first touch",
          "[locality]") {
  // Cells ordered 2, 0, 1 (new numbers: cell 0 -> 1, cell 1 -> 2, cell 2 -> 0).
  const std::vector<index_t> cell_order = {2, 0, 1};
  const std::vector<index_t> new_cell = d::inverse_order(cell_order);
  CHECK(new_cell == std::vector<index_t>{1, 2, 0});
  // Edges -> 2 cells: (0,1) keys (1,2); (2,1) keys (0,2); (1,0) keys (1,2); (0,2) keys (0,1).
  const std::vector<index_t> edge_cells = {0, 1, 2, 1, 1, 0, 0, 2};
  CHECK(d::order_by_targets({edge_cells, 2}, new_cell) == std::vector<index_t>{3, 1, 0, 2});
  // Cells -> 2 of 5 nodes; node 4 is no cell's.
  const std::vector<index_t> cell_nodes = {3, 1, 1, 0, 2, 3};
  CHECK(d::order_by_first_touch({cell_nodes, 2}, cell_order, 5) == std::vector<index_t>{2, 3, 1, 0, 4});
}

TEST_CASE("rows sort by their smallest then next smallest target, ties in their order, whatever the arity",
          "[locality]") {
  // Targets drawn from few values, so that many rows share a smallest (more than sort in place)
  // and many tie on both; the expected order by a comparison sort of the keys.
  std::mt19937 random(51);
  for (const int arity : {1, 2, 3}) {
    const index_t targets = 7;
    std::vector<index_t> values(300 * static_cast<std::size_t>(arity));
    for (index_t& v : values) v = static_cast<index_t>(random() % targets);
    std::vector<index_t> new_of_old(targets);
    std::iota(new_of_old.begin(), new_of_old.end(), index_t{0});
    std::shuffle(new_of_old.begin(), new_of_old.end(), random);
    const d::map_rows rows{values, arity};
    std::vector<std::pair<index_t, index_t>> key(rows.rows());
    for (std::size_t r = 0; r < key.size(); ++r) {
      std::vector<index_t> row;
      for (const index_t t : rows.row(r)) row.push_back(new_of_old[static_cast<std::size_t>(t)]);
      std::sort(row.begin(), row.end());
      key[r] = {row[0], row.size() > 1 ? row[1] : targets};
    }
    std::vector<index_t> expected(rows.rows());
    std::iota(expected.begin(), expected.end(), index_t{0});
    std::stable_sort(expected.begin(), expected.end(), [&](index_t a, index_t b) {
      return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
    });
    CHECK(d::order_by_targets(rows, new_of_old) == expected);
  }
}

TEST_CASE("a randomly numbered mesh's sets ordered from its cells are permutations that bring neighbours together",
          "[locality]") {
  const grid g = shuffled_grid(make_grid(30, 20));
  d::mesh_links mesh;
  mesh.set_sizes = {g.cells, g.edges, g.nodes, 0};  // and an empty set no map reaches
  mesh.maps = {{1, 0, {g.edge_cells, 2}}, {1, 2, {g.edge_nodes, 2}}, {0, 2, {g.cell_nodes, 4}}};
  const std::vector<std::vector<index_t>> orders = d::locality_orders(mesh, 0);
  REQUIRE(orders.size() == 4);
  for (std::size_t s = 0; s < 4; ++s) CHECK(is_permutation_of(orders[s], mesh.set_sizes[s]));
  const std::vector<index_t> new_cells = d::inverse_order(orders[0]), new_nodes = d::inverse_order(orders[2]);
  const std::vector<index_t> edge_cells = renumbered(g.edge_cells, 2, orders[1], new_cells);
  // Edges follow their cells: the lower cell of consecutive edges never goes down.
  for (std::size_t e = 2; e < edge_cells.size(); e += 2) {
    CHECK(std::min(edge_cells[e], edge_cells[e + 1]) >= std::min(edge_cells[e - 2], edge_cells[e - 1]));
  }
  // Nodes in the order the cells first reach them: the first cell's nodes are nodes 0 to 3.
  const std::vector<index_t> cell_nodes = renumbered(g.cell_nodes, 4, orders[0], new_nodes);
  std::vector<index_t> first(cell_nodes.begin(), cell_nodes.begin() + 4);
  std::sort(first.begin(), first.end());
  CHECK(first == std::vector<index_t>{0, 1, 2, 3});
  // A node is never far from its cells: within a few diagonals of the grid (30 x 20 cells; random
  // numbers would be hundreds apart).
  index_t farthest = 0;
  for (index_t c = 0; c < g.cells; ++c) {
    for (int j = 0; j < 4; ++j)
      farthest = std::max(farthest, std::abs(cell_nodes[static_cast<std::size_t>(c) * 4 + j] - c));
  }
  CHECK(farthest <= 2 * 30);
}
