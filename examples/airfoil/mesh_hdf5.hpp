// SPDX-License-Identifier: MIT
// Airfoil's mesh in HDF5 as OP2's HDF5 Airfoil reads it (new_grid.h5, OP2's convert_mesh writes
// it): sets nodes, edges, bedges, cells; maps pedge, pecell, pbedge, pbecell, pcell; dats p_bound,
// p_x, and the flow's starting dats p_q, p_qold, p_adt, p_res; constants gam, gm1, cfl, eps,
// mach, alpha, qinf; read and written through parloop's hdf5 component.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <parloop/io/hdf5.hpp>
#include <parloop/parloop.hpp>

#include "flow.hpp"
#include "mesh.hpp"

namespace airfoil {

// The mesh in OP2's HDF5 layout, read straight into its arrays: the solver declares the sets,
// maps and dats (and checks the maps' targets).
inline mesh read_mesh_hdf5(const std::string& path) {
  namespace h5 = parloop::hdf5;
  const h5::File file = h5::File::open(path);
  mesh m;
  m.nnode = h5::read_size(file, "nodes");
  m.ncell = h5::read_size(file, "cells");
  m.nedge = h5::read_size(file, "edges");
  m.nbedge = h5::read_size(file, "bedges");
  const auto rows = [](int n) { return static_cast<hsize_t>(n); };
  m.x = h5::read_values<double>(file, "p_x", rows(m.nnode), 2);
  m.cell = h5::read_values<pl::index_t>(file, "pcell", rows(m.ncell), 4);
  m.edge = h5::read_values<pl::index_t>(file, "pedge", rows(m.nedge), 2);
  m.ecell = h5::read_values<pl::index_t>(file, "pecell", rows(m.nedge), 2);
  m.bedge = h5::read_values<pl::index_t>(file, "pbedge", rows(m.nbedge), 2);
  m.becell = h5::read_values<pl::index_t>(file, "pbecell", rows(m.nbedge), 1);
  m.bound = h5::read_values<std::int32_t>(file, "p_bound", rows(m.nbedge), 1);
  return m;
}

// Writes `m` and the flow's start as OP2's convert_mesh does, whole or not at all.
inline void write_mesh_hdf5(const mesh& m, const flow& c, const std::string& path) {
  namespace h5 = parloop::hdf5;
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set nodes(host, m.nnode, "nodes"), edges(host, m.nedge, "edges"), bedges(host, m.nbedge, "bedges"),
      cells(host, m.ncell, "cells");
  std::vector<double> q(4 * static_cast<std::size_t>(m.ncell));
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = c.qinf[i % 4];
  h5::File file = h5::File::create(path);
  for (const pl::Set& s : {nodes, edges, bedges, cells}) h5::write(file, s);
  h5::write(file, pl::Map(edges, nodes, 2, m.edge, "pedge"));
  h5::write(file, pl::Map(edges, cells, 2, m.ecell, "pecell"));
  h5::write(file, pl::Map(bedges, nodes, 2, m.bedge, "pbedge"));
  h5::write(file, pl::Map(bedges, cells, 1, m.becell, "pbecell"));
  h5::write(file, pl::Map(cells, nodes, 4, m.cell, "pcell"));
  h5::write(file, pl::Dat<std::int32_t>(bedges, m.bound, "p_bound"));
  h5::write(file, pl::Dat<double, 2>(nodes, m.x, "p_x"));
  h5::write(file, pl::Dat<double, 4>(cells, q, "p_q"));
  h5::write(file, pl::Dat<double, 4>(cells, q, "p_qold"));
  h5::write(file, pl::Dat<double>(cells, "p_adt"));
  h5::write(file, pl::Dat<double, 4>(cells, "p_res"));
  const double mach = 0.4, alpha = 3.0 * std::atan(1.0) / 45.0;
  for (const auto& [name, value] :
       {std::pair{"gam", c.gam}, {"gm1", c.gm1}, {"cfl", c.cfl}, {"eps", c.eps}, {"mach", mach}, {"alpha", alpha}}) {
    h5::write_constant(file, name, value);
  }
  h5::write_constant(file, "qinf", std::span<const double>(c.qinf));
  file.close();
}

}  // namespace airfoil
