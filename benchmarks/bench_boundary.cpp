// SPDX-License-Identifier: MIT
// A boundary loop at its own cost: on a set distributed over the ranks (mpirun -np N, or one
// process), a loop over 1000 edges -- a subset, as a boundary is -- writing cells through a map
// whose whole set collides (two edges per cell; the subset's cells are distinct), against the
// same subset writing its own edges directly. Checking that two elements of the loop do not meet
// at a target is the first loop's cost; later calls find the answer kept. Printed per size: each
// loop's median microseconds on rank 0 and their ratio. Usage: bench_boundary [reps (200)]
#include <mpi.h>

#include <parloop/mpi/distribute.hpp>
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace pl = parloop;
namespace pm = parloop::mpi;

int main(int argc, char** argv) {
  return pm::run(argc, argv, [&] {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 200;
    if (reps < 1) {
      std::fprintf(stderr, "usage: bench_boundary [reps >= 1]\n");
      return 2;
    }
    const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
    const pl::Runtime rt = pl::Runtime::open();
    if (rank == 0) {
      std::printf("bench_boundary on %s (%s), %d ranks: a 1000-edge subset, median of %d\n",
                  std::string(pl::backend_name(rt.kind())).c_str(), rt.device_name().c_str(), ranks, reps);
      std::printf("%10s %16s %16s %8s\n", "cells", "through map us", "direct us", "ratio");
    }
    for (const pl::index_t cells : {pl::index_t(1) << 20, pl::index_t(1) << 24}) {
      const pl::index_t edges = 2 * cells;
      pm::global_mesh mesh;
      const bool root = rank == 0;
      std::vector<pl::index_t> edge_cell;
      std::vector<int> owners;
      if (root) {
        edge_cell.resize(static_cast<std::size_t>(edges));
        for (pl::index_t e = 0; e < edges; ++e) edge_cell[static_cast<std::size_t>(e)] = e / 2;
        // Contiguous blocks of cells per rank: the edges follow their cells.
        owners.resize(static_cast<std::size_t>(cells));
        for (pl::index_t c = 0; c < cells; ++c) {
          owners[static_cast<std::size_t>(c)] = static_cast<int>(std::int64_t{c} * ranks / cells);
        }
      }
      const pm::set_id c_id = mesh.set(root ? cells : 0, "cells"), e_id = mesh.set(root ? edges : 0, "edges");
      const pm::map_id m_id = mesh.map(e_id, c_id, 1, edge_cell, "edge_cell");
      const pm::distributed_mesh local(rt, MPI_COMM_WORLD, mesh, pm::partitioning::by_owners(c_id, owners));
      const pl::Set& edge_set = local[e_id];
      const pl::Set& cell_set = local[c_id];
      const pl::Map& to_cell = local[m_id];
      pl::Dat<double> on_cells(cell_set, "on_cells"), on_edges(edge_set, "on_edges");
      // The first 1000 even edges of each rank's owned ones: one per cell.
      std::vector<pl::index_t> wall;
      const std::span<const pl::index_t> numbers = pm::global_numbers(edge_set);
      for (pl::index_t e = 0; e < edge_set.owned() && wall.size() < 1000; ++e) {
        if (numbers[static_cast<std::size_t>(e)] % 2 == 0) wall.push_back(e);
      }
      const pl::Subset boundary(edge_set, wall, "boundary");
      const auto set_value = pl::kernel("boundary_value", [](auto v) { v = 1.0; });
      const double through = parloop_bench::median_loop_seconds(
          rt, reps, [&] { pl::par_loop(set_value, boundary, on_cells(pl::WRITE, to_cell, 0)); });
      const double direct =
          parloop_bench::median_loop_seconds(rt, reps, [&] { pl::par_loop(set_value, boundary, on_edges(pl::WRITE)); });
      if (root) std::printf("%10d %16.2f %16.2f %7.2fx\n", cells, 1e6 * through, 1e6 * direct, through / direct);
    }
    return 0;
  });
}
