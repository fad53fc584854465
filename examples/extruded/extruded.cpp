// SPDX-License-Identifier: MIT
// Heat diffusion in a column mesh: OP2's Airfoil mesh (the flow around a NACA 0012 aerofoil,
// made here) extruded into layers, as an ocean or atmosphere model stacks cells over a 2-D mesh.
// A cell-centred finite-volume step:
//   - horizontal fluxes through the vertical walls over the base mesh's edges (a loop over the
//     extruded set of walls, through pl::extrude's map to the cells on either side),
//   - vertical fluxes through the interior horizontal facets (a loop over the cells' interior
//     facets, which sees the cell below and the cell above each facet),
//   - the bottom layer heated towards 1 and the top layer cooled towards 0 (loops over the bottom
//     and the top only),
//   - the update, each cell by its volume: its column's area (a dat on the base set) times dz.
// The base mesh's geometry (areas, and each edge's length over the distance between its cells'
// centres) comes from loops over the base mesh. The same steps as plain C++ loops check the
// result.
//   extruded [base cells (2000)] [layers (50)] [steps (200)]
#include <parloop/parloop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels.hpp"
#include "naca0012.hpp"

namespace pl = parloop;

namespace {

// Heating from below and cooling from above, through a facet's conductance to the outside.
constexpr double bottom_temperature = 1.0, top_temperature = 0.0, depth = 1.0;

struct geometry {
  std::vector<double> area, conductance;  // per base cell; per base edge (length / distance)
};

// The base mesh's geometry on the host, as the reference computes it.
geometry reference_geometry(const airfoil::mesh& m) {
  geometry g;
  std::vector<double> centre(2 * std::size_t(m.ncell));
  for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) {
    double a = 0, cx = 0, cy = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const auto p = std::size_t(m.cell[4 * c + j]), q = std::size_t(m.cell[4 * c + (j + 1) % 4]);
      a += m.x[2 * p] * m.x[2 * q + 1] - m.x[2 * q] * m.x[2 * p + 1];
      cx += 0.25 * m.x[2 * p];
      cy += 0.25 * m.x[2 * p + 1];
    }
    g.area.push_back(0.5 * std::fabs(a));
    centre[2 * c] = cx;
    centre[2 * c + 1] = cy;
  }
  for (std::size_t e = 0; e < std::size_t(m.nedge); ++e) {
    const auto n0 = std::size_t(m.edge[2 * e]), n1 = std::size_t(m.edge[2 * e + 1]);
    const auto c0 = std::size_t(m.ecell[2 * e]), c1 = std::size_t(m.ecell[2 * e + 1]);
    const double dx = m.x[2 * n1] - m.x[2 * n0], dy = m.x[2 * n1 + 1] - m.x[2 * n0 + 1];
    const double cx = centre[2 * c1] - centre[2 * c0], cy = centre[2 * c1 + 1] - centre[2 * c0 + 1];
    const double length = std::sqrt(dx * dx + dy * dy), distance = std::sqrt(cx * cx + cy * cy);
    g.conductance.push_back(length / distance);
  }
  return g;
}

int run(long long base_cells, int layers, int steps) {
  const airfoil::mesh m = airfoil::make_naca0012(base_cells);
  const double dz = depth / layers;
  // Stable: dt times the largest sum of a cell's conductances over its volume at most 1/2.
  const geometry g = reference_geometry(m);
  std::vector<double> around(std::size_t(m.ncell), 0.0);
  for (std::size_t e = 0; e < std::size_t(m.nedge); ++e) {
    around[std::size_t(m.ecell[2 * e])] += g.conductance[e] * dz;
    around[std::size_t(m.ecell[2 * e + 1])] += g.conductance[e] * dz;
  }
  double fastest = 0;
  for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) {
    fastest = std::max(fastest, (around[c] + 2 * g.area[c] / dz) / (g.area[c] * dz));
  }
  const double dt = 0.5 / fastest;

  const pl::Runtime rt = pl::Runtime::open();
  // The base mesh.
  const pl::Set nodes(rt, m.nnode, "nodes"), base_cells_set(rt, m.ncell, "base_cells"), edges(rt, m.nedge, "edges");
  const pl::Map cell_nodes(base_cells_set, nodes, 4, m.cell, "cell_nodes");
  const pl::Map edge_nodes(edges, nodes, 2, m.edge, "edge_nodes");
  const pl::Map edge_cells(edges, base_cells_set, 2, m.ecell, "edge_cells");
  const pl::Dat<double, 2> x(nodes, m.x, "x");
  pl::Dat<double> area(base_cells_set, "area"), conductance(edges, "conductance");
  pl::Dat<double, 2> centre(base_cells_set, "centre");
  // Its columns: the cells, and the vertical walls over the base edges between them.
  const pl::ExtrudedSet cells(base_cells_set, layers, "cells"), walls(edges, layers, "walls");
  const pl::Map wall_cells = pl::extrude(edge_cells, walls, cells, {0}, "wall_cells");
  const pl::Map own = pl::extrude(cells, cells, {0}, "own");
  pl::Dat<double> t(cells, "t"), q(cells, "q");
  pl::Global<double> change(rt, 0.0, "change"), heat(rt, 0.0, "heat");

  const auto geometry_of_cells = pl::kernel("cell_geometry", [](auto p, auto a, auto c) {
    a = 0.0;
    c[0] = 0.0;
    c[1] = 0.0;
    for (int j = 0; j < 4; ++j) {
      const int k = (j + 1) % 4;
      a += p[j][0] * p[k][1] - p[k][0] * p[j][1];
      c[0] += 0.25 * p[j][0];
      c[1] += 0.25 * p[j][1];
    }
    a = 0.5 * pl::fabs(a);
  });
  const auto geometry_of_edges = pl::kernel("edge_geometry", [](auto p0, auto p1, auto c, auto k) {
    const auto dx = pl::let(p1[0] - p0[0]), dy = pl::let(p1[1] - p0[1]);
    const auto cx = pl::let(c[1][0] - c[0][0]), cy = pl::let(c[1][1] - c[0][1]);
    k = pl::sqrt(dx * dx + dy * dy) / pl::sqrt(cx * cx + cy * cy);
  });
  pl::par_loop(geometry_of_cells, base_cells_set, x(pl::READ, cell_nodes), area(pl::WRITE), centre(pl::WRITE));
  pl::par_loop(geometry_of_edges, edges, x(pl::READ, edge_nodes, 0), x(pl::READ, edge_nodes, 1),
               centre(pl::READ, edge_cells), conductance(pl::WRITE));

  // Per step: fluxes into q, then the update, which empties q again.
  pl::Global<double> wall_height(rt, dz, "dz"), step_size(rt, dt, "dt");
  pl::Global<double> hot(rt, bottom_temperature, "hot"), cold(rt, top_temperature, "cold");
  const auto horizontal = extruded::horizontal_flux();
  const auto vertical = extruded::vertical_flux();
  const auto boundary = extruded::boundary_flux();
  const auto update = extruded::update();
  for (int s = 0; s < steps; ++s) {
    pl::par_loop(horizontal, walls, conductance(pl::READ), t(pl::READ, wall_cells, 0), t(pl::READ, wall_cells, 1),
                 q(pl::INC, wall_cells, 0), q(pl::INC, wall_cells, 1), wall_height(pl::READ));
    pl::par_loop(vertical, cells.interior_facets(), area(pl::READ), t(pl::READ, own), q(pl::INC, own),
                 wall_height(pl::READ));
    pl::par_loop(boundary, cells.bottom(), area(pl::READ), t(pl::READ), q(pl::INC), hot(pl::READ),
                 wall_height(pl::READ));
    pl::par_loop(boundary, cells.top(), area(pl::READ), t(pl::READ), q(pl::INC), cold(pl::READ), wall_height(pl::READ));
    change.set_value(0.0);
    heat.set_value(0.0);
    pl::par_loop(update, cells, area(pl::READ), t(pl::RW), q(pl::RW), wall_height(pl::READ), step_size(pl::READ),
                 change(pl::MAX), heat(pl::INC));
  }
  const std::vector<double> values(t.host().begin(), t.host().end());

  // The same steps as plain loops over the column-by-column arrays.
  const auto L = std::size_t(layers);
  std::vector<double> ref(values.size(), 0.0), flux(values.size(), 0.0);
  double ref_change = 0, ref_heat = 0;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t e = 0; e < std::size_t(m.nedge); ++e) {
      const auto c0 = std::size_t(m.ecell[2 * e]), c1 = std::size_t(m.ecell[2 * e + 1]);
      for (std::size_t l = 0; l < L; ++l) {
        const double f = g.conductance[e] * dz * (ref[c1 * L + l] - ref[c0 * L + l]);
        flux[c0 * L + l] += f;
        flux[c1 * L + l] -= f;
      }
    }
    for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) {
      for (std::size_t l = 0; l + 1 < L; ++l) {
        const double f = g.area[c] / dz * (ref[c * L + l + 1] - ref[c * L + l]);
        flux[c * L + l] += f;
        flux[c * L + l + 1] -= f;
      }
      flux[c * L] += 2.0 * g.area[c] / dz * (bottom_temperature - ref[c * L]);
      flux[c * L + L - 1] += 2.0 * g.area[c] / dz * (top_temperature - ref[c * L + L - 1]);
    }
    ref_change = 0;
    ref_heat = 0;
    for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) {
      for (std::size_t l = 0; l < L; ++l) {
        const double d = dt * flux[c * L + l] / (g.area[c] * dz);
        ref[c * L + l] += d;
        flux[c * L + l] = 0;
        ref_change = std::max(ref_change, std::fabs(d));
        ref_heat += g.area[c] * dz * ref[c * L + l];
      }
    }
  }
  double diff = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) diff = std::max(diff, std::fabs(values[i] - ref[i]));
  // Each layer's mean temperature: the profile heat diffuses into from below.
  std::printf("extruded heat on %s: %d base cells x %d layers = %d cells, %d walls, %d steps of %.3e\n",
              rt.device_name().c_str(), m.ncell, layers, cells.size(), walls.size(), steps, dt);
  std::printf("  mean temperature by layer:");
  for (std::size_t l = 0; l < L; l += std::max<std::size_t>(1, L / 5)) {
    double sum = 0;
    for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) sum += values[c * L + l];
    std::printf(" [%zu] %.6f", l, sum / m.ncell);
  }
  std::printf("\n  heat %.10f, last step's largest change %.3e\n", heat.value(), change.value());
  // Devices add a cell's fluxes in another order and may fuse multiply-adds.
  const double tolerance = 1e-12;
  const bool ok = diff <= tolerance && std::fabs(heat.value() - ref_heat) <= tolerance * std::max(1.0, ref_heat) &&
                  std::fabs(change.value() - ref_change) <= tolerance;
  std::printf("  max |t - plain C++ loops| = %.3e -> %s\n", diff, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const long long base_cells = argc > 1 ? std::atoll(argv[1]) : 2000;
  const int layers = argc > 2 ? std::atoi(argv[2]) : 50;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 200;
  if (layers < 2 || steps < 0) {
    std::fprintf(stderr, "usage: extruded [base cells >= 72] [layers >= 2] [steps >= 0]\n");
    return 2;
  }
  try {
    return run(base_cells, layers, steps);
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
