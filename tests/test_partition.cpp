// SPDX-License-Identifier: MIT
// Partitioning for distribution over ranks (mpi/graph.hpp, mpi/partition.hpp): the graph a map
// makes, METIS's (and Scotch's, where built) cuts of a grid against the ideal and against chance,
// recursive coordinate bisection's blocks, the corner cases (one part, more parts than elements,
// no edges) and the refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <parloop/mpi/partition.hpp>

namespace pl = parloop;
namespace pm = parloop::mpi;
using Catch::Matchers::Contains;

namespace {

// The edges of a side x side grid of vertices (v = y * side + x), as a map of arity 2.
std::vector<pl::index_t> grid_edges(int side) {
  std::vector<pl::index_t> e;
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      const int v = y * side + x;
      if (x + 1 < side) e.insert(e.end(), {v, v + 1});
      if (y + 1 < side) e.insert(e.end(), {v, v + side});
    }
  }
  return e;
}

std::vector<pm::graph_partitioner> partitioners() {
#if PARLOOP_HAVE_SCOTCH
  return {pm::graph_partitioner::metis, pm::graph_partitioner::scotch};
#else
  return {pm::graph_partitioner::metis};
#endif
}

}  // namespace

TEST_CASE("a map joins the targets of each element, once, without self loops", "[partition]") {
  // Three elements of arity 3 over 5 targets; the last reaches target 4 twice.
  const std::vector<pl::index_t> values{0, 1, 2, 2, 3, 1, 4, 3, 4};
  const pm::graph g = pm::joined_by(values, 3, 6);
  CHECK(g.vertices() == 6);
  CHECK(g.offsets == std::vector<pl::index_t>{0, 2, 5, 8, 11, 12, 12});
  CHECK(g.neighbours == std::vector<pl::index_t>{1, 2, 0, 2, 3, 0, 1, 3, 1, 2, 4, 3});
  // Target 5 is reached by nothing: a vertex without neighbours.
  CHECK_THROWS_WITH(pm::joined_by(values, 0, 6), Contains("arity is at least 1, not 0"));
  CHECK_THROWS_WITH(pm::joined_by(values, 2, 6),
                    Contains("9 map values are not a whole number of elements of arity 2"));
  CHECK_THROWS_WITH(pm::joined_by(values, 3, 4), Contains("map value 4 (element 2, slot 0) is outside [0, 4)"));
}

TEST_CASE("a graph partitioner cuts a grid near the ideal, in parts of equal size, the same every time",
          "[partition]") {
  const int side = 64;
  const pm::graph g = pm::joined_by(grid_edges(side), 2, side * side);
  const std::int64_t edges = static_cast<std::int64_t>(g.neighbours.size()) / 2;
  for (const pm::graph_partitioner which : partitioners()) {
    for (const int parts : {2, 4, 8, 13}) {
      INFO(pm::to_string(which) << ", " << parts << " parts");
      const std::vector<int> part = pm::partition_graph(g, parts, which);
      REQUIRE(part.size() == static_cast<std::size_t>(side * side));
      CHECK(std::all_of(part.begin(), part.end(), [&](int p) { return p >= 0 && p < parts; }));
      const auto sizes = pm::part_sizes(part, parts);
      const double mean = static_cast<double>(side * side) / parts;
      CHECK(*std::min_element(sizes.begin(), sizes.end()) > 0);
      CHECK(*std::max_element(sizes.begin(), sizes.end()) <= std::ceil(1.05 * mean));
      // The ideal cut of a square into p parts is about sqrt(p) lines across it; chance cuts
      // (1 - 1/p) of every edge.
      const std::int64_t cut = pm::edge_cut(g, part);
      CHECK(cut <= static_cast<std::int64_t>(2.0 * std::sqrt(static_cast<double>(parts)) * side));
      CHECK(cut * 10 < edges * (parts - 1) / parts);
      CHECK(pm::partition_graph(g, parts, which) == part);
    }
  }
}

TEST_CASE("one part, more parts than vertices, no vertices and no edges", "[partition]") {
  const pm::graph g = pm::joined_by(grid_edges(4), 2, 16);
  for (const pm::graph_partitioner which : partitioners()) {
    CHECK(pm::partition_graph(g, 1, which) == std::vector<int>(16, 0));
    // Each vertex a part of its own; the parts past the vertices hold nothing.
    const std::vector<int> many = pm::partition_graph(g, 20, which);
    CHECK(pm::part_sizes(many, 20) ==
          std::vector<pl::index_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0});
    CHECK(pm::partition_graph(pm::graph{}, 3, which).empty());
    // No edges to cut: consecutive runs.
    const pm::graph isolated = pm::joined_by(std::vector<pl::index_t>{0, 1, 2, 3, 4, 5, 6}, 1, 7);
    CHECK(pm::partition_graph(isolated, 3, which) == std::vector<int>{0, 0, 0, 1, 1, 2, 2});
  }
}

TEST_CASE("a partitioner refuses a part count or graph it cannot cut, naming it", "[partition]") {
  const pm::graph g = pm::joined_by(grid_edges(4), 2, 16);
  CHECK_THROWS_WITH(pm::partition_graph(g, 0), Contains("partition_graph: at least 1 part, not 0"));
  pm::graph bad = g;
  bad.neighbours[3] = 16;
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("has neighbour 16 (16 vertices)"));
  bad = g;
  bad.neighbours[3] = 1;  // vertex 1's own
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("vertex 1 has neighbour 1"));
  bad = g;
  bad.offsets.back() += 1;
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("do not frame"));
  bad = g;
  bad.offsets[2] = 1;
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("the offsets decrease at vertex 1"));
  // Vertex 0's neighbours are 1 and 4: swapped, not ascending; 4 without 0, an edge one way only.
  bad = g;
  std::swap(bad.neighbours[0], bad.neighbours[1]);
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("vertex 0's neighbours are not ascending at 1"));
  bad = g;
  bad.neighbours[1] = 2;
  CHECK_THROWS_WITH(pm::partition_graph(bad, 2), Contains("vertex 0 has neighbour 2, which does not have it"));
  CHECK_THROWS_WITH(pm::edge_cut(g, std::vector<int>(15, 0)), Contains("15 parts for 16 vertices"));
  CHECK_THROWS_WITH(pm::part_sizes(std::vector<int>{0, 2, 1}, 2), Contains("part 2 of 2"));
}

TEST_CASE("recursive coordinate bisection cuts points into blocks whose sizes differ by one at most", "[partition]") {
  // A 32 x 32 grid of points into 4 parts: four 16 x 16 blocks.
  std::vector<double> grid;
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 32; ++x) grid.insert(grid.end(), {static_cast<double>(x), static_cast<double>(y)});
  }
  const std::vector<int> part = pm::partition_coordinates(grid, 2, 4);
  for (int p = 0; p < 4; ++p) {
    double lo[2] = {1e9, 1e9}, hi[2] = {-1e9, -1e9};
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i] != p) continue;
      for (int a = 0; a < 2; ++a) {
        lo[a] = std::min(lo[a], grid[2 * i + static_cast<std::size_t>(a)]);
        hi[a] = std::max(hi[a], grid[2 * i + static_cast<std::size_t>(a)]);
      }
    }
    CHECK(hi[0] - lo[0] == 15.0);
    CHECK(hi[1] - lo[1] == 15.0);
  }
  // Random points in 3D, every count of parts up to 9 and more parts than points.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  for (const int n : {0, 1, 5, 100, 1001}) {
    std::vector<double> points(static_cast<std::size_t>(3 * n));
    for (double& c : points) c = coordinate(rng);
    for (int parts = 1; parts <= 9; ++parts) {
      INFO(n << " points, " << parts << " parts");
      const std::vector<int> p = pm::partition_coordinates(points, 3, parts);
      REQUIRE(p.size() == static_cast<std::size_t>(n));
      const auto sizes = pm::part_sizes(p, parts);
      CHECK(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
      CHECK(pm::partition_coordinates(points, 3, parts) == p);
    }
  }
  CHECK_THROWS_WITH(pm::partition_coordinates(grid, 0, 2), Contains("not a whole number of points of 0"));
  CHECK_THROWS_WITH(pm::partition_coordinates(grid, 3, 2), Contains("2048 coordinates are not a whole number"));
  CHECK_THROWS_WITH(pm::partition_coordinates(grid, 2, 0), Contains("at least 1 part, not 0"));
  grid[7] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(pm::partition_coordinates(grid, 2, 2), Contains("coordinate 1 of element 3 is nan"));
}
