// SPDX-License-Identifier: MIT
// Airfoil's mesh distributed over MPI ranks, as OP2's airfoil_mpi does it: every rank declares
// the same sets, maps and dats; the root's mesh (read or generated there only), or the blocks
// every rank reads of an HDF5 mesh file, is partitioned by the graph of cells joined by their
// edges, and each rank gets its share -- the same handles the solver takes on one runtime, so its
// loops run unchanged.
#pragma once

#include <mpi.h>

#include <string>

#include <parloop/mpi/distribute.hpp>
#if PARLOOP_HAVE_HDF5
#include <parloop/io/hdf5_mpi.hpp>
#endif

#include "mesh.hpp"
#include "solver.hpp"

namespace airfoil {

namespace distributed_detail {
namespace pm = pl::mpi;

// Airfoil's declarations in a global mesh, however they were made.
struct declared {
  pm::set_id nodes, edges, bedges, cells;
  pm::map_id pedge, pecell, pbedge, pbecell, pcell;
  pm::dat_id<std::int32_t, 1> bound;
  pm::dat_id<double, 2> x;
};

// This rank's share of the declared mesh, partitioned by the graph of cells joined by edges.
inline mesh_handles share(const pl::Runtime& rt, MPI_Comm comm, const pm::global_mesh& g, const declared& d,
                          bool for_locality) {
  const pm::distributed_mesh local(
      rt, comm, g,
      pm::partitioning::by_graph(d.pecell).ordered(for_locality ? pm::local_order::locality : pm::local_order::global));
  return {local[d.nodes], local[d.edges],  local[d.bedges], local[d.cells],
          local[d.pedge], local[d.pecell], local[d.pbedge], local[d.pbecell],
          local[d.pcell], local[d.bound],  local[d.x],      local[d.cells].global_size()};
}
}  // namespace distributed_detail

// Collective over `comm`; `m` is read on rank 0 only (the others pass an empty mesh). With
// `for_locality`, each rank orders its share for locality (as pl::renumber orders a whole mesh);
// without, by global number.
inline mesh_handles distributed(const pl::Runtime& rt, MPI_Comm comm, const mesh& m, bool for_locality) {
  pl::mpi::global_mesh g;
  distributed_detail::declared d{};
  d.nodes = g.set(m.nnode, "nodes"), d.edges = g.set(m.nedge, "edges"), d.bedges = g.set(m.nbedge, "bedges");
  d.cells = g.set(m.ncell, "cells");
  d.pedge = g.map(d.edges, d.nodes, 2, m.edge, "pedge"), d.pecell = g.map(d.edges, d.cells, 2, m.ecell, "pecell");
  d.pbedge = g.map(d.bedges, d.nodes, 2, m.bedge, "pbedge");
  d.pbecell = g.map(d.bedges, d.cells, 1, m.becell, "pbecell"), d.pcell = g.map(d.cells, d.nodes, 4, m.cell, "pcell");
  d.bound = g.dat<std::int32_t, 1>(d.bedges, m.bound, "p_bound");
  d.x = g.dat<double, 2>(d.nodes, m.x, "p_x");
  return distributed_detail::share(rt, comm, g, d, for_locality);
}

#if PARLOOP_HAVE_HDF5
// A mesh file in OP2's HDF5 layout as every rank reads it: its own block of each set's rows, read
// at once by all (no rank reads the whole file). Collective over `comm`.
struct mesh_blocks {
  pl::mpi::global_mesh mesh{pl::mpi::values_from::each_rank};
  distributed_detail::declared ids{};
};
inline mesh_blocks read_blocks(MPI_Comm comm, const std::string& path) {
  mesh_blocks b;
  const pl::hdf5::File file = pl::hdf5::File::open(path);
  pl::hdf5::mesh_reader read(file, b.mesh, comm);
  distributed_detail::declared& d = b.ids;
  d.nodes = read.set("nodes"), d.edges = read.set("edges"), d.bedges = read.set("bedges"), d.cells = read.set("cells");
  d.pedge = read.map("pedge", d.edges, d.nodes, 2), d.pecell = read.map("pecell", d.edges, d.cells, 2);
  d.pbedge = read.map("pbedge", d.bedges, d.nodes, 2), d.pbecell = read.map("pbecell", d.bedges, d.cells, 1);
  d.pcell = read.map("pcell", d.cells, d.nodes, 4);
  d.bound = read.dat<std::int32_t, 1>("p_bound", d.bedges);
  d.x = read.dat<double, 2>("p_x", d.nodes);
  return b;
}

// Those blocks partitioned as the root's mesh is. Collective over `comm`.
inline mesh_handles distributed(const pl::Runtime& rt, MPI_Comm comm, const mesh_blocks& b, bool for_locality) {
  return distributed_detail::share(rt, comm, b.mesh, b.ids, for_locality);
}
#endif

}  // namespace airfoil
