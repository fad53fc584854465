// SPDX-License-Identifier: MIT
// A C-mesh of quadrilaterals around a NACA0012 aerofoil (chord [0, 1]) in a far field, the kind
// of mesh OP2's Airfoil runs on. The grid is uniform in the plane w = sqrt(z - z0): z0 sits just
// inside the leading edge, so the aerofoil and its wake open up into a nearly flat curve along
// the real axis, and z = w^2 + z0 maps the square cells of the w-grid back to cells that are
// nearly square again (the map is conformal) and small near the leading edge.
//
// In w, node (i, j) has real part s_i, uniform over [-3 s_te, 3 s_te] (s_te = sqrt(1 - z0) maps
// to the trailing edge): the first I columns of cells follow the wake below the aerofoil, the
// next I the aerofoil from the trailing edge round the leading edge and back, the last I the
// wake above it. Its imaginary part runs from the surface (h(s_i), 0 along the wake) up to
// 3 s_te in J rows. The two sides of the wake meet along a cut: the bottom nodes of column i
// and of column 3I - i have the same coordinates, and the cells across it share an edge.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

#include "faces.hpp"
#include "mesh.hpp"

namespace airfoil {

namespace naca0012_detail {

constexpr double z0 = 0.0077;

// Half-thickness of the 12% section at chord position x, with the closed trailing edge.
inline double half_thickness(double x) {
  if (x <= 0.0 || x >= 1.0) return 0.0;
  return 0.6 * (0.2969 * std::sqrt(x) + x * (-0.1260 + x * (-0.3516 + x * (0.2843 + x * -0.1036))));
}

// The height above the real w-axis at which the line Re w = s meets the aerofoil's image:
// z = (s + ih)^2 + z0 lies on the surface where 2|s|h equals the half-thickness at
// x = s^2 - h^2 + z0. Below the surface the thickness is larger; by bisection.
inline double surface_height(double s) {
  double lo = 0.0, hi = std::sqrt(s * s + z0);
  for (int k = 0; k < 100 && hi - lo > 1e-16; ++k) {
    const double h = 0.5 * (lo + hi);
    if (2.0 * std::fabs(s) * h < half_thickness(s * s - h * h + z0))
      lo = h;
    else
      hi = h;
  }
  return hi;
}

}  // namespace naca0012_detail

// About `cells` cells: I = sqrt(cells / 4.5) columns per part, J = 1.5 I rows, 3 I J cells
// (720000 = OP2's size: I = 400, J = 600).
inline mesh make_naca0012(long long cells) {
  using namespace naca0012_detail;
  if (cells < 72 || cells > 200'000'000) {
    throw pl::argument_error(fmt::format("--size {}: the generated mesh has 72 to 200000000 cells", cells));
  }
  const int I = std::max(4, static_cast<int>(std::lround(std::sqrt(static_cast<double>(cells) / 4.5))));
  const int J = static_cast<int>(std::lround(1.5 * I));
  const int columns = 3 * I, row = columns + 1;
  mesh m;
  m.nnode = row * (J + 1);
  m.ncell = columns * J;
  m.nedge = (columns - 1) * J + columns * (J - 1) + I;
  m.nbedge = I + columns + 2 * J;

  const double s_te = std::sqrt(1.0 - z0), top = 3.0 * s_te;
  m.x.resize(2 * std::size_t(m.nnode));
  for (int i = 0; i <= columns; ++i) {
    const double s = s_te * (2.0 * (i - I) / I - 1.0);
    const double h = (i > I && i < 2 * I) ? surface_height(s) : 0.0;
    for (int j = 0; j <= J; ++j) {
      const double t = h + (top - h) * j / J;
      const auto n = 2 * std::size_t(i + j * row);
      m.x[n] = s * s - t * t + z0;
      m.x[n + 1] = 2.0 * s * t;
    }
  }
  const auto node = [&](int i, int j) { return static_cast<pl::index_t>(i + j * row); };
  const auto cell_of = [&](int i, int j) { return static_cast<pl::index_t>(i + j * columns); };

  m.cell.reserve(4 * std::size_t(m.ncell));
  for (int j = 0; j < J; ++j) {
    for (int i = 0; i < columns; ++i) {
      for (const pl::index_t n : {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)}) m.cell.push_back(n);
    }
  }

  face_builder faces(m);
  for (int j = 0; j < J; ++j) {
    for (int i = 1; i < columns; ++i) faces.edge(node(i, j), node(i, j + 1), cell_of(i - 1, j), cell_of(i, j));
  }
  for (int j = 1; j < J; ++j) {
    for (int i = 0; i < columns; ++i) faces.edge(node(i, j), node(i + 1, j), cell_of(i, j - 1), cell_of(i, j));
  }
  for (int i = 0; i < I; ++i) faces.edge(node(i, 0), node(i + 1, 0), cell_of(i, 0), cell_of(columns - 1 - i, 0));

  for (int i = I; i < 2 * I; ++i) faces.boundary(node(i, 0), node(i + 1, 0), cell_of(i, 0), 1);
  for (int i = 0; i < columns; ++i) faces.boundary(node(i, J), node(i + 1, J), cell_of(i, J - 1), 2);
  for (int j = 0; j < J; ++j) {
    faces.boundary(node(0, j), node(0, j + 1), cell_of(0, j), 2);
    faces.boundary(node(columns, j), node(columns, j + 1), cell_of(columns - 1, j), 2);
  }
  return m;
}

}  // namespace airfoil
