// SPDX-License-Identifier: MIT
// An O-grid of quadrilaterals around a NACA0012 aerofoil (chord [0, 1]): N cells around in each
// of M rings, N = 2M, from the aerofoil out to a circle 20 chords across. The other kind of
// mesh a user brings (OP2's Airfoil runs a C-mesh, naca0012.hpp), and one whose numbering a
// generator may choose many ways: its own numbers rings from the wall out, each ring around from
// the trailing edge over the upper surface; edges around every ring's radial faces first, then
// the faces between rings.
//
// Ray i leaves the surface at x = (1 + cos b) / 2, b = 2 pi i / N (upper surface for b < pi,
// lower after: the trailing edge at i = 0, the leading edge at N / 2), and ends on the circle
// at angle b; its nodes are spaced geometrically, finest at the wall.
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

#include "faces.hpp"
#include "mesh.hpp"
#include "naca0012.hpp"

namespace airfoil {

// About `cells` cells: M = sqrt(cells / 2) rings of N = 2 M (720000: M = 600, N = 1200).
inline mesh make_o_grid(long long cells) {
  if (cells < 72 || cells > 200'000'000) {
    throw pl::argument_error(fmt::format("--size {}: the generated O-grid has 72 to 200000000 cells", cells));
  }
  const int M = static_cast<int>(std::lround(std::sqrt(static_cast<double>(cells) / 2.0))), N = 2 * M;
  mesh m;
  m.nnode = N * (M + 1);
  m.ncell = N * M;
  m.nedge = N * M + N * (M - 1);
  m.nbedge = 2 * N;

  constexpr double radius = 10.0, stretch = 6.0;
  m.x.resize(2 * std::size_t(m.nnode));
  for (int i = 0; i < N; ++i) {
    const double b = 2.0 * std::numbers::pi * i / N;
    const double xs = 0.5 * (1.0 + std::cos(b));
    const double ys = (b < std::numbers::pi ? 1.0 : -1.0) * naca0012_detail::half_thickness(xs);
    const double xf = 0.5 + radius * std::cos(b), yf = radius * std::sin(b);
    for (int j = 0; j <= M; ++j) {
      const double t = std::expm1(stretch * j / M) / std::expm1(stretch);
      const auto n = 2 * std::size_t(i + j * N);
      m.x[n] = xs + t * (xf - xs);
      m.x[n + 1] = ys + t * (yf - ys);
    }
  }
  const auto node = [&](int i, int j) { return static_cast<pl::index_t>((i % N) + j * N); };
  const auto cell_of = [&](int i, int j) { return static_cast<pl::index_t>(((i + N) % N) + j * N); };

  m.cell.reserve(4 * std::size_t(m.ncell));
  for (int j = 0; j < M; ++j) {
    for (int i = 0; i < N; ++i) {
      // Counter-clockwise, as the C-mesh's: out along ray i, back along ray i + 1.
      for (const pl::index_t n : {node(i, j), node(i, j + 1), node(i + 1, j + 1), node(i + 1, j)}) m.cell.push_back(n);
    }
  }

  face_builder faces(m);
  for (int j = 0; j < M; ++j) {
    for (int i = 0; i < N; ++i) faces.edge(node(i, j), node(i, j + 1), cell_of(i - 1, j), cell_of(i, j));
  }
  for (int j = 1; j < M; ++j) {
    for (int i = 0; i < N; ++i) faces.edge(node(i, j), node(i + 1, j), cell_of(i, j - 1), cell_of(i, j));
  }
  for (int i = 0; i < N; ++i) faces.boundary(node(i, 0), node(i + 1, 0), cell_of(i, 0), 1);
  for (int i = 0; i < N; ++i) faces.boundary(node(i, M), node(i + 1, M), cell_of(i, M - 1), 2);
  return m;
}

}  // namespace airfoil
