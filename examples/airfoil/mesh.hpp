// SPDX-License-Identifier: MIT
// Airfoil's mesh as OP2 keeps it (new_grid.dat, plain text, 0-based):
//   nnode ncell nedge nbedge
//   nnode lines   x y                    node coordinates
//   ncell lines   n0 n1 n2 n3            cell -> node
//   nedge lines   n0 n1 c0 c1            edge -> node, edge -> cell
//   nbedge lines  n0 n1 c bound          boundary edge -> node, -> cell, 1 = wall, 2 = far field
// An edge's normal (y1 - y2, x2 - x1) points from its first cell into its second (a boundary
// edge's out of its cell): res_calc and bres_calc add the flux to the first and take it from
// the second.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

namespace airfoil {

namespace pl = parloop;

struct mesh {
  int nnode = 0, ncell = 0, nedge = 0, nbedge = 0;
  std::vector<double> x;              // 2 per node
  std::vector<pl::index_t> cell;      // 4 nodes per cell
  std::vector<pl::index_t> edge;      // 2 nodes per edge
  std::vector<pl::index_t> ecell;     // 2 cells per edge
  std::vector<pl::index_t> bedge;     // 2 nodes per boundary edge
  std::vector<pl::index_t> becell;    // 1 cell per boundary edge
  std::vector<std::int32_t> bound;    // 1 per boundary edge
};

// Reads `path`. Counts and values that cannot be read are errors naming the file and what was
// being read; indices out of range are left to pl::Map, which names entry, element and slot.
inline mesh read_mesh(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw pl::argument_error(fmt::format("mesh '{}': it is a folder", path));
  std::ifstream in(path);
  if (!in) throw pl::argument_error(fmt::format("mesh '{}': cannot open it (no such file, or not readable)", path));
  mesh m;
  long long counts[4] = {};
  if (!(in >> counts[0] >> counts[1] >> counts[2] >> counts[3])) {
    throw pl::argument_error(fmt::format("mesh '{}': the first line must be four counts: nnode ncell nedge nbedge", path));
  }
  for (const long long c : counts) {
    if (c > std::numeric_limits<int>::max()) {
      throw pl::argument_error(fmt::format("mesh '{}': count {} is larger than an int", path, c));
    }
  }
  m.nnode = static_cast<int>(counts[0]);
  m.ncell = static_cast<int>(counts[1]);
  m.nedge = static_cast<int>(counts[2]);
  m.nbedge = static_cast<int>(counts[3]);
  if (m.nnode < 1 || m.ncell < 1 || m.nedge < 0 || m.nbedge < 0) {
    throw pl::argument_error(fmt::format("mesh '{}': counts {} {} {} {}: nodes and cells must be at least 1, edges at least 0",
                                         path, m.nnode, m.ncell, m.nedge, m.nbedge));
  }
  // Every value but the last takes at least two characters: counts the file cannot hold are
  // refused before anything is allocated for them. (A pipe has no size: its reads fail instead.)
  const auto bytes = std::filesystem::file_size(path, ec);
  const auto values = 2 * std::uintmax_t(m.nnode) + 4 * std::uintmax_t(m.ncell) + 4 * std::uintmax_t(m.nedge) +
                      4 * std::uintmax_t(m.nbedge);
  if (!ec && 2 * values - 1 > bytes) {
    throw pl::argument_error(fmt::format("mesh '{}': counts {} {} {} {} need {} values, more than its {} bytes can hold",
                                         path, m.nnode, m.ncell, m.nedge, m.nbedge, values, bytes));
  }
  const auto read = [&](auto& out, int count, int per_line, const char* what) {
    out.resize(std::size_t(count) * std::size_t(per_line));
    for (int i = 0; i < count; ++i) {
      for (int k = 0; k < per_line; ++k) {
        if (!(in >> out[std::size_t(i) * std::size_t(per_line) + std::size_t(k)])) {
          throw pl::argument_error(
              fmt::format("mesh '{}': {} {} (from 0) of {}: cannot read its value {} of {}", path, what, i, count, k + 1,
                          per_line));
        }
      }
    }
  };
  read(m.x, m.nnode, 2, "node");
  read(m.cell, m.ncell, 4, "cell");
  m.edge.resize(2 * std::size_t(m.nedge));
  m.ecell.resize(2 * std::size_t(m.nedge));
  for (int e = 0; e < m.nedge; ++e) {
    const auto i = 2 * std::size_t(e);
    if (!(in >> m.edge[i] >> m.edge[i + 1] >> m.ecell[i] >> m.ecell[i + 1])) {
      throw pl::argument_error(
          fmt::format("mesh '{}': edge {} (from 0) of {}: cannot read its two nodes and two cells", path, e, m.nedge));
    }
  }
  m.bedge.resize(2 * std::size_t(m.nbedge));
  m.becell.resize(std::size_t(m.nbedge));
  m.bound.resize(std::size_t(m.nbedge));
  for (int e = 0; e < m.nbedge; ++e) {
    const auto i = std::size_t(e);
    if (!(in >> m.bedge[2 * i] >> m.bedge[2 * i + 1] >> m.becell[i] >> m.bound[i])) {
      throw pl::argument_error(fmt::format(
          "mesh '{}': boundary edge {} (from 0) of {}: cannot read its two nodes, its cell and its bound", path, e,
          m.nbedge));
    }
    if (m.bound[i] != 1 && m.bound[i] != 2) {
      throw pl::argument_error(fmt::format("mesh '{}': boundary edge {} (from 0) of {}: bound {} is neither 1 (wall) nor 2 (far field)",
                                           path, e, m.nbedge, m.bound[i]));
    }
  }
  std::string rest;
  if (in >> rest) {
    throw pl::argument_error(fmt::format("mesh '{}': '{}' after the last boundary edge: the counts say the file ends there",
                                         path, rest.substr(0, 40)));
  }
  return m;
}

// Writes `m` to `path` in the same layout, through a temporary file renamed into place: the
// file is whole or untouched. Coordinates keep every bit (%.17g), so reading back gives the
// same mesh.
inline void write_mesh(const mesh& m, const std::string& path) {
  const std::string temporary = path + ".part";
  std::FILE* f = std::fopen(temporary.c_str(), "w");
  if (f == nullptr) throw pl::argument_error(fmt::format("mesh '{}': cannot write it ({})", path, std::strerror(errno)));
  std::error_code ec;
  // fmt::print throws where a write fails: the partial file goes either way.
  try {
    fmt::print(f, "{} {} {} {}\n", m.nnode, m.ncell, m.nedge, m.nbedge);
    for (int n = 0; n < m.nnode; ++n) fmt::print(f, "{:.17g} {:.17g}\n", m.x[2 * std::size_t(n)], m.x[2 * std::size_t(n) + 1]);
    for (int c = 0; c < m.ncell; ++c) {
      const auto* v = &m.cell[4 * std::size_t(c)];
      fmt::print(f, "{} {} {} {}\n", v[0], v[1], v[2], v[3]);
    }
    for (int e = 0; e < m.nedge; ++e) {
      const auto i = 2 * std::size_t(e);
      fmt::print(f, "{} {} {} {}\n", m.edge[i], m.edge[i + 1], m.ecell[i], m.ecell[i + 1]);
    }
    for (int e = 0; e < m.nbedge; ++e) {
      const auto i = std::size_t(e);
      fmt::print(f, "{} {} {} {}\n", m.bedge[2 * i], m.bedge[2 * i + 1], m.becell[i], m.bound[i]);
    }
  } catch (const std::exception&) {
    std::fclose(f);
    std::filesystem::remove(temporary, ec);
    throw pl::argument_error(fmt::format("mesh '{}': writing it failed (disk full?)", path));
  }
  const bool written = std::ferror(f) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::filesystem::remove(temporary, ec);
    throw pl::argument_error(fmt::format("mesh '{}': writing it failed (disk full?)", path));
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(temporary, ec);
    throw pl::argument_error(fmt::format("mesh '{}': cannot move it into place ({})", path, why));
  }
}

}  // namespace airfoil
