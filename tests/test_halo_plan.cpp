// SPDX-License-Identifier: MIT
// OP2's regions on every rank (mpi/halo_plan.hpp) and the owners derived from one set's
// partition (mpi/owners.hpp): a chain worked by hand; on random meshes, partitioned many ways
// (at random, by METIS through the derived owners, one rank owning nothing, one rank), every
// region against its definition, the local maps against the global ones, imports against
// exports; and, simulated rank by rank, a loop that increments through a map over owned and exec
// halo, and a halo exchange, give the serial answers exactly -- as given, and with each rank's
// regions ordered for locality (mpi/region_order.hpp), which on a randomly numbered grid brings
// each rank's neighbours close together.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

#include <fmt/format.h>

#include <parloop/mpi/halo_plan.hpp>
#include <parloop/mpi/owners.hpp>
#include <parloop/mpi/partition.hpp>
#include <parloop/mpi/region_order.hpp>

#include "grid_mesh.hpp"
#include "mpi_mesh.hpp"
#include "random_mesh.hpp"

namespace pl = parloop;
namespace pm = parloop::mpi;
using Catch::Matchers::Contains;
using idx = std::vector<pl::index_t>;
using parloop_test::mesh;
using parloop_test::random_mesh;

TEST_CASE("a chain of six cells on two ranks, worked by hand", "[halo]") {
  // Sets: 0 cells (6), 1 edges (5), edge e joining cells e and e + 1.
  const idx sizes{6, 5};
  const idx edge_cells{0, 1, 1, 2, 2, 3, 3, 4, 4, 5};
  const pm::global_map maps[] = {{1, 0, 2, edge_cells}};
  const auto owners = pm::derive_owners(sizes, maps, 0, {0, 0, 0, 1, 1, 1}, 2);
  CHECK(owners[1] == std::vector<int>{0, 0, 0, 1, 1});  // each edge with its first cell
  const auto plans = pm::plan_halos(sizes, maps, owners, 2);

  const pm::rank_set& cells0 = plans[0].sets[0];
  CHECK(cells0.global == idx{0, 1, 2, 3});  // cell 3: read by edge 2
  CHECK((cells0.core_end == 3 && cells0.owned_end == 3 && cells0.exec_end == 3));
  const pm::rank_set& edges0 = plans[0].sets[1];
  CHECK(edges0.global == idx{0, 1, 2});  // edge 2 reaches cell 3: owned, not core
  CHECK((edges0.core_end == 2 && edges0.owned_end == 3 && edges0.exec_end == 3));
  const pm::rank_set& cells1 = plans[1].sets[0];
  CHECK(cells1.global == idx{3, 4, 5, 2});
  CHECK((cells1.core_end == 3 && cells1.owned_end == 3 && cells1.exec_end == 3));
  const pm::rank_set& edges1 = plans[1].sets[1];
  CHECK(edges1.global == idx{3, 4, 2});  // edge 2 again: it increments cell 3
  CHECK((edges1.core_end == 2 && edges1.owned_end == 2 && edges1.exec_end == 3));
  CHECK(plans[1].maps[0] == idx{0, 1, 1, 2, 3, 0});
  CHECK(plans[0].maps[0] == idx{0, 1, 1, 2, 2, 3});

  CHECK(cells1.import_from == std::vector<idx>{{3}, {}});
  CHECK(cells0.export_to == std::vector<idx>{{}, {2}});
  CHECK(edges1.import_from == std::vector<idx>{{2}, {}});
  CHECK(edges0.export_to == std::vector<idx>{{}, {2}});
  CHECK(cells0.import_from == std::vector<idx>{{}, {3}});
  CHECK(cells1.export_to == std::vector<idx>{{0}, {}});
}

namespace {

// Every region against its definition, local maps against global ones, imports against exports.
void check_plan(const mesh& m, const std::vector<std::vector<int>>& owners, const std::vector<pm::rank_plan>& plans) {
  const auto maps = m.maps();
  const auto ranks = static_cast<int>(plans.size());
  const auto executes = [&](int r, std::size_t s, pl::index_t e) {
    if (owners[s][static_cast<std::size_t>(e)] == r) return true;
    for (const pm::global_map& map : maps) {
      if (static_cast<std::size_t>(map.from) != s) continue;
      for (int k = 0; k < map.arity; ++k) {
        const auto t =
            map.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(map.arity) + static_cast<std::size_t>(k)];
        if (owners[static_cast<std::size_t>(map.to)][static_cast<std::size_t>(t)] == r) return true;
      }
    }
    return false;
  };
  for (std::size_t s = 0; s < m.sizes.size(); ++s) {
    std::vector<int> owned_count(static_cast<std::size_t>(m.sizes[s]), 0);
    for (int r = 0; r < ranks; ++r) {
      INFO("rank " << r << ", set " << s);
      const pm::rank_set& rs = plans[static_cast<std::size_t>(r)].sets[s];
      REQUIRE(
          (0 <= rs.core_end && rs.core_end <= rs.owned_end && rs.owned_end <= rs.exec_end && rs.exec_end <= rs.size()));
      std::set<pl::index_t> seen;
      for (pl::index_t i = 0; i < rs.size(); ++i) {
        const pl::index_t g = rs.global[static_cast<std::size_t>(i)];
        REQUIRE(seen.insert(g).second);  // each element once
        const bool owned = owners[s][static_cast<std::size_t>(g)] == r;
        CHECK(owned == (i < rs.owned_end));
        if (owned) ++owned_count[static_cast<std::size_t>(g)];
        CHECK(executes(r, s, g) == (i < rs.exec_end));
        if (i < rs.owned_end) {
          // Core: every target owned here.
          bool all_here = true;
          for (const pm::global_map& map : maps) {
            if (static_cast<std::size_t>(map.from) != s) continue;
            for (int k = 0; k < map.arity; ++k) {
              const auto t = map.values[static_cast<std::size_t>(g) * static_cast<std::size_t>(map.arity) +
                                        static_cast<std::size_t>(k)];
              all_here = all_here && owners[static_cast<std::size_t>(map.to)][static_cast<std::size_t>(t)] == r;
            }
          }
          CHECK(all_here == (i < rs.core_end));
        }
      }
      // Completeness: whatever an executed element reaches is here; whatever is executed here is.
      for (pl::index_t g = 0; g < m.sizes[s]; ++g) {
        if (executes(r, s, g)) CHECK(seen.count(g) == 1);
      }
      // Imports from their owners, exported by them in the same order.
      for (int q = 0; q < ranks; ++q) {
        const auto& imports = rs.import_from[static_cast<std::size_t>(q)];
        const auto& exports = plans[static_cast<std::size_t>(q)].sets[s].export_to[static_cast<std::size_t>(r)];
        REQUIRE(imports.size() == exports.size());
        for (std::size_t i = 0; i < imports.size(); ++i) {
          CHECK(imports[i] >= rs.owned_end);
          const pl::index_t g = rs.global[static_cast<std::size_t>(imports[i])];
          CHECK(owners[s][static_cast<std::size_t>(g)] == q);
          CHECK(plans[static_cast<std::size_t>(q)].sets[s].global[static_cast<std::size_t>(exports[i])] == g);
          CHECK(exports[i] < plans[static_cast<std::size_t>(q)].sets[s].owned_end);
        }
      }
      std::size_t imported = 0;
      for (const auto& from : rs.import_from) imported += from.size();
      CHECK(imported == static_cast<std::size_t>(rs.size() - rs.owned_end));
    }
    CHECK(std::all_of(owned_count.begin(), owned_count.end(), [](int c) { return c == 1; }));
  }
  for (int r = 0; r < ranks; ++r) {
    const pm::rank_plan& p = plans[static_cast<std::size_t>(r)];
    for (std::size_t mi = 0; mi < maps.size(); ++mi) {
      const pm::global_map& map = maps[mi];
      const pm::rank_set& from = p.sets[static_cast<std::size_t>(map.from)];
      const pm::rank_set& to = p.sets[static_cast<std::size_t>(map.to)];
      REQUIRE(p.maps[mi].size() == static_cast<std::size_t>(from.exec_end) * static_cast<std::size_t>(map.arity));
      for (std::size_t i = 0; i < p.maps[mi].size(); ++i) {
        const pl::index_t local = p.maps[mi][i];
        REQUIRE((local >= 0 && local < to.size()));
        const auto e = static_cast<std::size_t>(from.global[i / static_cast<std::size_t>(map.arity)]);
        CHECK(to.global[static_cast<std::size_t>(local)] ==
              map.values[e * static_cast<std::size_t>(map.arity) + i % static_cast<std::size_t>(map.arity)]);
      }
    }
  }
}

// Each edge adds its nodes' values into its cells, on the whole mesh and simulated rank by rank
// over owned and exec halo edges, after a simulated halo exchange of the nodes: the owned cells
// hold the serial sums, exactly (integers).
void check_distributed_loop(const mesh& m, const std::vector<pm::rank_plan>& plans) {
  const auto nodes0 = parloop_test::random_values<std::int64_t>(static_cast<std::size_t>(m.sizes[2]));
  const std::vector<std::int64_t> serial = parloop_test::serial_edge_sums(m, nodes0);
  const auto ranks = plans.size();
  // Each rank's nodes: owned values from the global array, halo values only by the exchange.
  std::vector<std::vector<std::int64_t>> nodes(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const pm::rank_set& rs = plans[r].sets[2];
    nodes[r].assign(static_cast<std::size_t>(rs.size()), -999999);
    for (pl::index_t i = 0; i < rs.owned_end; ++i) {
      nodes[r][static_cast<std::size_t>(i)] = nodes0[static_cast<std::size_t>(rs.global[static_cast<std::size_t>(i)])];
    }
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    for (std::size_t q = 0; q < ranks; ++q) {
      const auto& into = plans[r].sets[2].import_from[q];
      const auto& from = plans[q].sets[2].export_to[r];
      for (std::size_t i = 0; i < into.size(); ++i) {
        nodes[r][static_cast<std::size_t>(into[i])] = nodes[q][static_cast<std::size_t>(from[i])];
      }
    }
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::vector<std::int64_t> cells = parloop_test::rank_edge_sums(plans[r], nodes[r]);
    for (pl::index_t i = 0; i < plans[r].sets[0].owned_end; ++i) {
      CHECK(cells[static_cast<std::size_t>(i)] ==
            serial[static_cast<std::size_t>(plans[r].sets[0].global[static_cast<std::size_t>(i)])]);
    }
  }
}

}  // namespace

TEST_CASE("on random meshes partitioned many ways, every region is its definition and a loop gives the serial sums",
          "[halo]") {
  const mesh m = random_mesh(300, 700, 250);
  const auto maps = m.maps();
  std::mt19937& rng = parloop_test::rng();
  for (const int ranks : {1, 2, 3, 4, 7}) {
    // At random, every set; a rank that owns nothing (the last, where there are several).
    const std::vector<std::vector<int>> random_owners = parloop_test::random_owners(m, ranks, rng);
    // Cells by METIS over the graph their edges make; edges and nodes derived.
    const auto cell_parts =
        pm::partition_graph(pm::joined_by(m.edge_cells, 2, m.sizes[0]), ranks, pm::graph_partitioner::metis);
    const auto derived = pm::derive_owners(m.sizes, maps, 0, cell_parts, ranks);
    for (const std::vector<std::vector<int>>* owners : {&random_owners, &derived}) {
      INFO(ranks << " ranks, " << (owners == &derived ? "METIS and derived" : "at random"));
      const auto plans = pm::plan_halos(m.sizes, maps, *owners, ranks);
      REQUIRE(plans.size() == static_cast<std::size_t>(ranks));
      check_plan(m, *owners, plans);
      check_distributed_loop(m, plans);
      // Each rank's regions ordered for locality: still every region its definition, the same
      // elements in an order the returned one gives, and the serial sums.
      std::vector<pm::rank_plan> ordered = plans;
      for (std::size_t r = 0; r < ordered.size(); ++r) {
        const std::vector<idx> orders = pm::order_regions(ordered[r], maps, 0);
        REQUIRE(orders.size() == 3);
        for (std::size_t s = 0; s < 3; ++s) {
          const idx& was = plans[r].sets[s].global;
          REQUIRE(orders[s].size() == was.size());
          for (std::size_t i = 0; i < was.size(); ++i) {
            CHECK(ordered[r].sets[s].global[i] == was[static_cast<std::size_t>(orders[s][i])]);
          }
        }
      }
      check_plan(m, *owners, ordered);
      check_distributed_loop(m, ordered);
      if (ranks == 1) {
        // One rank: everything owned and core, nothing imported.
        for (std::size_t s = 0; s < 3; ++s) {
          CHECK(plans[0].sets[s].core_end == m.sizes[s]);
          CHECK(plans[0].sets[s].size() == m.sizes[s]);
        }
      }
    }
  }
}

namespace {

// The mean distance between the local numbers of the two cells of each edge a rank executes.
double mean_cell_gap(const pm::rank_plan& p) {
  const idx& edge_cells = p.maps[0];
  if (edge_cells.empty()) return 0;
  double sum = 0;
  for (std::size_t e = 0; e < edge_cells.size(); e += 2) sum += std::abs(edge_cells[e] - edge_cells[e + 1]);
  return sum / static_cast<double>(edge_cells.size() / 2);
}

}  // namespace

TEST_CASE("each rank's regions of a randomly numbered grid, ordered for locality, hold neighbours close", "[halo]") {
  const pl::index_t w = 120, h = 80;
  const parloop_test::grid g = parloop_test::shuffled_grid(parloop_test::make_grid(w, h));
  const idx sizes{g.cells, g.edges, g.nodes};
  const std::vector<pm::global_map> maps{{1, 0, 2, g.edge_cells}, {1, 2, 2, g.edge_nodes}, {0, 2, 4, g.cell_nodes}};
  for (const int ranks : {1, 4}) {
    const auto cell_parts =
        pm::partition_graph(pm::joined_by(g.edge_cells, 2, g.cells), ranks, pm::graph_partitioner::metis);
    const auto owners = pm::derive_owners(sizes, maps, 0, cell_parts, ranks);
    const auto plans = pm::plan_halos(sizes, maps, owners, ranks);
    for (std::size_t r = 0; r < plans.size(); ++r) {
      INFO(ranks << " ranks, rank " << r);
      pm::rank_plan ordered = plans[r];
      pm::order_regions(ordered, maps, 0);
      // In global order, a rank's cells of one edge are about a third of its cells apart; a part
      // of about w * h / ranks cells ordered by reverse Cuthill-McKee, a diagonal or so of it
      // (measured over 20 numberings: at most 1.7 times the square root of its cells on 4 ranks,
      // whose regions split the order in four).
      const double cells = static_cast<double>(plans[r].sets[0].size());
      REQUIRE(mean_cell_gap(plans[r]) > cells / 5);
      CHECK(mean_cell_gap(ordered) < std::min<double>(w, 3 * std::sqrt(cells)));
    }
  }
}

TEST_CASE("derived owners: an element with its first target, one reached with the lowest rank reaching it", "[halo]") {
  // Sets: 0 cells (4), 1 edges (3), 2 nodes (6), 3 a set no map joins (5).
  const idx sizes{4, 3, 6, 5};
  const idx edge_cells{1, 0, 2, 3, 3, 1};
  const idx cell_nodes{0, 1, 1, 2, 2, 3, 3, 4};  // node 5: no cell reaches it
  const pm::global_map maps[] = {{1, 0, 2, edge_cells}, {0, 2, 2, cell_nodes}};
  const auto owners = pm::derive_owners(sizes, maps, 0, {2, 0, 1, 1}, 3);
  CHECK(owners[0] == std::vector<int>{2, 0, 1, 1});
  CHECK(owners[1] == std::vector<int>{0, 1, 1});
  CHECK(owners[2] == std::vector<int>{2, 0, 0, 1, 1, 2});  // node 5 by position: 5 * 3 / 6
  CHECK(owners[3] == std::vector<int>{0, 0, 1, 1, 2});
  CHECK_THROWS_WITH(pm::derive_owners(sizes, maps, 4, {}, 3), Contains("set 4 is not one of the 4 sets"));
  CHECK_THROWS_WITH(pm::derive_owners(sizes, maps, 0, {2, 0, 3, 1}, 3),
                    Contains("element 2 of set 0 is owned by rank 3 of 3"));
}

TEST_CASE("a plan refuses a mesh or owners it cannot number, naming what is wrong", "[halo]") {
  const idx sizes{3, 2};
  const idx edge_cells{0, 1, 1, 3};
  const pm::global_map bad_value[] = {{1, 0, 2, edge_cells}};
  const std::vector<std::vector<int>> owners{{0, 0, 1}, {0, 1}};
  CHECK_THROWS_WITH(pm::plan_halos(sizes, bad_value, owners, 2),
                    Contains("map 0 value 3 (element 1, slot 1) is outside set 0 of 3 elements"));
  const idx short_values{0, 1, 1};
  const pm::global_map too_short[] = {{1, 0, 2, short_values}};
  CHECK_THROWS_WITH(pm::plan_halos(sizes, too_short, owners, 2),
                    Contains("map 0 has 3 values for 2 elements of arity 2"));
  const idx good{0, 1, 1, 2};
  const pm::global_map fine[] = {{1, 0, 2, good}};
  CHECK_THROWS_WITH(pm::plan_halos(sizes, fine, std::vector<std::vector<int>>{{0, 0, 1}}, 2),
                    Contains("owners of 1 sets given for 2 sets"));
  CHECK_THROWS_WITH(pm::plan_halos(sizes, fine, std::vector<std::vector<int>>{{0, 0}, {0, 1}}, 2),
                    Contains("set 0 has 3 elements and 2 owners"));
  CHECK_THROWS_WITH(pm::plan_halos(sizes, fine, owners, 0), Contains("at least 1 rank, not 0"));
  const pm::global_map wrong_set[] = {{1, 2, 2, good}};
  CHECK_THROWS_WITH(pm::plan_halos(sizes, wrong_set, owners, 2),
                    Contains("map 0 goes from set 1 to set 2 with arity 2 (2 sets)"));
}

TEST_CASE("ordering a rank's regions refuses a plan its map shapes do not fit, naming what is wrong", "[halo]") {
  const idx sizes{3, 2};
  const idx edge_cells{0, 1, 1, 2};
  const pm::global_map maps[] = {{1, 0, 2, edge_cells}};
  const std::vector<std::vector<int>> owners{{0, 0, 1}, {0, 1}};
  const pm::rank_plan plan = pm::plan_halos(sizes, maps, owners, 2)[0];
  pm::rank_plan copy = plan;
  CHECK_THROWS_WITH(pm::order_regions(copy, {}, 0), Contains("0 map shapes for a plan of 1 maps"));
  CHECK_THROWS_WITH(pm::order_regions(copy, maps, 2), Contains("first set 2 of 2"));
  const pm::global_map wider[] = {{1, 0, 3, edge_cells}};
  CHECK_THROWS_WITH(pm::order_regions(copy, wider, 0), Contains("map 0 (from set 1 to set 0, arity 3) does not fit"));
  // A damaged plan: a map value past its target set's local elements.
  copy.maps[0].back() = plan.sets[0].size();
  CHECK_THROWS_WITH(pm::order_regions(copy, maps, 0),
                    Contains(fmt::format("map 0 value {} (row", plan.sets[0].size())) && Contains("is outside set 0"));
}
