// SPDX-License-Identifier: MIT
// Faces appended to a generated mesh whose nodes and cells are in place, in Airfoil's
// convention: a face's two nodes ordered so that its normal points out of its first cell (an
// interior edge's first cell, a boundary edge's only one). The generators (naca0012.hpp,
// o_grid.hpp) give the faces; this file orients them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <parloop/parloop.hpp>

#include "mesh.hpp"

namespace airfoil {

class face_builder {
 public:
  explicit face_builder(mesh& m) : m_(m) {}

  // The face between nodes a and b, with cells c0 and c1 on either side.
  void edge(pl::index_t a, pl::index_t b, pl::index_t c0, pl::index_t c1) {
    const auto [n0, n1] = facing_out(a, b, c0);
    m_.edge.insert(m_.edge.end(), {n0, n1});
    m_.ecell.insert(m_.ecell.end(), {c0, c1});
  }
  // The face between nodes a and b on the boundary of cell c: 1 the wall, 2 the far field.
  void boundary(pl::index_t a, pl::index_t b, pl::index_t c, std::int32_t bound) {
    const auto [n0, n1] = facing_out(a, b, c);
    m_.bedge.insert(m_.bedge.end(), {n0, n1});
    m_.becell.push_back(c);
    m_.bound.push_back(bound);
  }

 private:
  double coordinate(pl::index_t n, int k) const { return m_.x[2 * std::size_t(n) + std::size_t(k)]; }

  // a and b, or b and a: the order whose normal points away from `from`'s centre.
  std::pair<pl::index_t, pl::index_t> facing_out(pl::index_t a, pl::index_t b, pl::index_t from) const {
    double cx = 0.0, cy = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
      cx += 0.25 * coordinate(m_.cell[4 * std::size_t(from) + k], 0);
      cy += 0.25 * coordinate(m_.cell[4 * std::size_t(from) + k], 1);
    }
    const double dx = coordinate(a, 0) - coordinate(b, 0), dy = coordinate(a, 1) - coordinate(b, 1);
    const double mx = 0.5 * (coordinate(a, 0) + coordinate(b, 0)) - cx;
    const double my = 0.5 * (coordinate(a, 1) + coordinate(b, 1)) - cy;
    return dy * mx - dx * my > 0.0 ? std::pair{a, b} : std::pair{b, a};
  }

  mesh& m_;
};

}  // namespace airfoil
