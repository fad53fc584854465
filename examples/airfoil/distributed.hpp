// SPDX-License-Identifier: MIT
// Airfoil's mesh distributed over MPI ranks, as OP2's airfoil_mpi does it: every rank declares
// the same sets, maps and dats; the root's mesh (read or generated there only) is partitioned by
// the graph of cells joined by their edges, and each rank gets its share -- the same handles the
// solver takes on one runtime, so its loops run unchanged.
#pragma once

#include <mpi.h>

#include <parloop/mpi/distribute.hpp>

#include "mesh.hpp"
#include "solver.hpp"

namespace airfoil {

// Collective over `comm`; `m` is read on rank 0 only (the others pass an empty mesh). With
// `for_locality`, each rank orders its share for locality (as pl::renumber orders a whole mesh);
// without, by global number.
inline mesh_handles distributed(const pl::Runtime& rt, MPI_Comm comm, const mesh& m, bool for_locality) {
  namespace pm = pl::mpi;
  pm::global_mesh g;
  const auto nodes = g.set(m.nnode, "nodes"), edges = g.set(m.nedge, "edges"), bedges = g.set(m.nbedge, "bedges"),
             cells = g.set(m.ncell, "cells");
  const auto pedge = g.map(edges, nodes, 2, m.edge, "pedge"), pecell = g.map(edges, cells, 2, m.ecell, "pecell"),
             pbedge = g.map(bedges, nodes, 2, m.bedge, "pbedge"),
             pbecell = g.map(bedges, cells, 1, m.becell, "pbecell"), pcell = g.map(cells, nodes, 4, m.cell, "pcell");
  const auto bound = g.dat<std::int32_t, 1>(bedges, m.bound, "p_bound");
  const auto x = g.dat<double, 2>(nodes, m.x, "p_x");
  const pm::distributed_mesh local(
      rt, comm, g,
      pm::partitioning::by_graph(pecell).ordered(for_locality ? pm::local_order::locality : pm::local_order::global));
  return {local[nodes],  local[edges],   local[bedges], local[cells], local[pedge], local[pecell],
          local[pbedge], local[pbecell], local[pcell],  local[bound], local[x],     local[cells].global_size()};
}

}  // namespace airfoil
