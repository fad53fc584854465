// SPDX-License-Identifier: MIT
// Which partitioner cuts a mesh best: METIS's k-way, Scotch's (where built) and recursive
// coordinate bisection, on the cells of OP2's Airfoil mesh (the generated NACA0012 mesh of the
// example; cells joined across each interior edge, RCB on the cells' centres), into 2 to 64
// parts. For each: the seconds it takes (median of 3), the edges cut (each a pair of halo cells
// to exchange), the cells with a neighbour in another part (what a rank exchanges and computes
// after its halo arrives), and the largest part against the mean. The cut and halo cells are
// given as ratios to METIS's in the same run.
// Usage: bench_partition [cells]   (default 720000, OP2's size)
#include <parloop/mpi/partition.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "../examples/airfoil/naca0012.hpp"
#include "common.hpp"

namespace pm = parloop::mpi;

namespace {

struct quality {
  double seconds;
  std::int64_t cut, halo_cells;
  double imbalance;  // largest part / mean
};

quality measure(const pm::graph& g, int parts, const std::function<std::vector<int>()>& partition) {
  std::vector<int> part;
  const double seconds = parloop_bench::median_seconds(3, [&] { part = partition(); });
  std::int64_t halo = 0;
  for (parloop::index_t v = 0; v < g.vertices(); ++v) {
    const auto first = g.neighbours.begin() + g.offsets[static_cast<std::size_t>(v)];
    const auto last = g.neighbours.begin() + g.offsets[static_cast<std::size_t>(v) + 1];
    halo += std::any_of(first, last, [&](parloop::index_t w) {
      return part[static_cast<std::size_t>(w)] != part[static_cast<std::size_t>(v)];
    });
  }
  const auto sizes = pm::part_sizes(part, parts);
  const double mean = static_cast<double>(g.vertices()) / parts;
  return {seconds, pm::edge_cut(g, part), halo,
          static_cast<double>(*std::max_element(sizes.begin(), sizes.end())) / mean};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const long long cells = argc > 1 ? std::atoll(argv[1]) : 720000;
    const airfoil::mesh m = airfoil::make_naca0012(cells);
    const pm::graph g = pm::joined_by(m.ecell, 2, m.ncell);
    std::vector<double> centres(2 * static_cast<std::size_t>(m.ncell), 0.0);
    for (std::size_t c = 0; c < static_cast<std::size_t>(m.ncell); ++c) {
      for (std::size_t k = 0; k < 4; ++k) {
        const auto node = static_cast<std::size_t>(m.cell[4 * c + k]);
        centres[2 * c] += 0.25 * m.x[2 * node];
        centres[2 * c + 1] += 0.25 * m.x[2 * node + 1];
      }
    }
    std::printf("partitioning the %d cells of the NACA0012 mesh (%zu edges between cells)\n", m.ncell,
                g.neighbours.size() / 2);
    std::printf("  %5s %-8s %10s %10s %8s %12s %8s %10s\n", "parts", "method", "seconds", "edges cut", "/ METIS",
                "halo cells", "/ METIS", "max/mean");
    for (const int parts : {2, 4, 8, 16, 64}) {
      const quality metis =
          measure(g, parts, [&] { return pm::partition_graph(g, parts, pm::graph_partitioner::metis); });
      const auto row = [&](const char* name, const quality& q) {
        std::printf("  %5d %-8s %10.3f %10lld %8.3f %12lld %8.3f %10.3f\n", parts, name, q.seconds,
                    static_cast<long long>(q.cut), static_cast<double>(q.cut) / static_cast<double>(metis.cut),
                    static_cast<long long>(q.halo_cells),
                    static_cast<double>(q.halo_cells) / static_cast<double>(metis.halo_cells), q.imbalance);
      };
      row("metis", metis);
#if PARLOOP_HAVE_SCOTCH
      row("scotch", measure(g, parts, [&] { return pm::partition_graph(g, parts, pm::graph_partitioner::scotch); }));
#endif
      row("rcb", measure(g, parts, [&] { return pm::partition_coordinates(centres, 2, parts); }));
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_partition: %s\n", e.what());
    return 1;
  }
}
