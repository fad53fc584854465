// SPDX-License-Identifier: MIT
// What colouring a loop's elements costs when many of them meet at one target, against a mesh
// where none do, in one run on this machine: the colouring a device backend builds for an INC
// through a map (pl::conflicts::colors, OpenCL's default for doubles without atomics).
//  - mesh: n edges, each reaching two of n / 3 cells at random (Airfoil's shape, a dozen colours);
//  - pile-up: the same edges, each reaching also cell 0 (every edge one colour of its own).
// Greedy colouring in passes of 32 colours visited every waiting edge once a pass, so a pile-up
// of n edges cost n / 32 passes over them, quadratic in n; the figure to watch is the pile-up's
// time per edge against the mesh's, which must not grow with n.
// Each figure is the median of repeated timings. Usage: bench_coloring
#include <parloop/order/coloring.hpp>
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace pl = parloop;

namespace {

constexpr int reps = 5;

// Seconds to colour `edges` elements reaching `through`'s targets.
double coloring_seconds(int edges, const std::vector<pl::detail::combined_targets>& through) {
  pl::transfer_stats transfers;
  return parloop_bench::median_seconds(reps, [&] {
    const auto c = pl::detail::color_elements(0, edges, through, transfers);
    if (c->order.size() != static_cast<std::size_t>(edges)) std::abort();
  });
}

}  // namespace

int main() {
  std::printf("%10s %14s %14s %10s %10s\n", "edges", "mesh ns/edge", "pile-up ns/edge", "ratio", "colours");
  std::mt19937 rng(7);
  for (const int edges : {1 << 16, 1 << 18, 1 << 20}) {
    const int cells = edges / 3;
    std::uniform_int_distribution<pl::index_t> pick(0, cells - 1);
    std::vector<pl::index_t> edge_cells(2 * static_cast<std::size_t>(edges));
    for (auto& c : edge_cells) c = pick(rng);
    const std::vector<pl::index_t> to_zero(static_cast<std::size_t>(edges), 0);
    const std::vector<pl::detail::combined_targets> mesh{{edge_cells, 2, 0, 1, 0, cells}};
    const std::vector<pl::detail::combined_targets> pile_up{{edge_cells, 2, 0, 1, 0, cells},
                                                            {to_zero, 1, 0, 0, 0, cells}};
    const double m = coloring_seconds(edges, mesh), p = coloring_seconds(edges, pile_up);
    pl::transfer_stats transfers;
    std::printf("%10d %14.1f %14.1f %10.2f %10d\n", edges, 1e9 * m / edges, 1e9 * p / edges, p / m,
                pl::detail::color_elements(0, edges, pile_up, transfers)->colors());
  }
}
