// SPDX-License-Identifier: MIT
// The extruded example's kernels, also timed by benchmarks/bench_extruded.cpp: a cell-centred
// finite-volume heat step in a column mesh, each flux added to one cell's q and taken from the
// other's.
#pragma once

#include <parloop/parloop.hpp>

namespace extruded {

namespace pl = parloop;

// Through a vertical wall over a base edge: the edge's conductance (its length over the distance
// between its cells' centres) times the wall's height dz.
inline auto horizontal_flux() {
  return pl::kernel("horizontal_flux", [](auto k, auto t0, auto t1, auto q0, auto q1, auto dz) {
    const auto f = pl::let(k * dz * (t1 - t0));
    q0 += f;
    q1 -= f;
  });
}

// Through an interior horizontal facet: the column's area over the distance dz between the
// centres of the cell below (slot 0) and the cell above (slot 1).
inline auto vertical_flux() {
  return pl::kernel("vertical_flux", [](auto a, auto tt, auto qq, auto dz) {
    const auto f = pl::let(a / dz * (tt[1][0] - tt[0][0]));
    qq[0][0] += f;
    qq[1][0] -= f;
  });
}

// Through a boundary facet half a cell from the cell's centre, to the temperature outside.
inline auto boundary_flux() {
  return pl::kernel("boundary_flux",
                    [](auto a, auto t, auto q, auto outside, auto dz) { q += 2.0 * a / dz * (outside - t); });
}

// Each cell by its volume, area times dz; q empties for the next step. The largest change and
// the heat in the mesh, as reductions.
inline auto update() {
  return pl::kernel("update", [](auto a, auto t, auto q, auto dz, auto dt, auto change, auto heat) {
    const auto dtemp = pl::let(dt * q / (a * dz));
    t += dtemp;
    q = 0.0;
    change = pl::max(change, pl::fabs(dtemp));
    heat += a * dz * t;
  });
}

}  // namespace extruded
