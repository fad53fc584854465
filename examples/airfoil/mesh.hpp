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

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

namespace airfoil {

namespace pl = parloop;

struct mesh {
  int nnode = 0, ncell = 0, nedge = 0, nbedge = 0;
  std::vector<double> x;            // 2 per node
  std::vector<pl::index_t> cell;    // 4 nodes per cell
  std::vector<pl::index_t> edge;    // 2 nodes per edge
  std::vector<pl::index_t> ecell;   // 2 cells per edge
  std::vector<pl::index_t> bedge;   // 2 nodes per boundary edge
  std::vector<pl::index_t> becell;  // 1 cell per boundary edge
  std::vector<std::int32_t> bound;  // 1 per boundary edge

  // Value for value: how may_be_op2_mesh (solver.hpp) tells the generated mesh from others.
  bool operator==(const mesh&) const = default;
};

namespace mesh_detail {

// The longest value read: %.17g writes at most 24 characters. A longer token is refused after
// this many, not read whole: a pipe of junk with no space in it would otherwise fill memory.
constexpr std::streamsize longest_token = 256;

// The values reserved at most for each vector where the file has no size (a pipe): its counts
// are not known to be true, and beyond this the vectors grow only as values arrive.
constexpr std::size_t reserved_without_size = std::size_t(1) << 20;

// Converts the whole of `token` into `v` (an int or a double), or says why it cannot: a number
// with junk glued to it ("12abc", "0.5x") is refused, not read up to the junk. Tokens are quoted
// with {:?}, which escapes control characters and bytes that are not UTF-8: a binary file's
// bytes would otherwise go to the terminal.
template <class T>
std::string convert(std::string_view token, T& v) {
  std::string_view digits = token;
  // Streams accept a leading '+', from_chars does not.
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  const char* const last = digits.data() + digits.size();
  const auto [end, ec] = std::from_chars(digits.data(), last, v);
  if (ec == std::errc::invalid_argument || end != last) {
    return fmt::format("{:?} is not {}", token, std::is_integral_v<T> ? "a whole number" : "a number");
  }
  if (ec == std::errc::result_out_of_range) {
    if constexpr (std::is_integral_v<T>) {
      return fmt::format("{} is {} than an int", token, token[0] == '-' ? "smaller" : "larger");
    } else {
      return fmt::format("{} is outside a double's range", token);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return fmt::format("{:?} is not a finite number", token);
  }
  return {};
}

}  // namespace mesh_detail

// Reads `path`, a file or a pipe (`--mesh /dev/stdin`, `<(zcat grid.dat.gz)`). Counts and values
// that cannot be read are errors naming the file, what was being read and the text found there;
// indices out of range are left to pl::Map, which names entry, element and slot.
inline mesh read_mesh(const std::string& path) {
  static_assert(std::is_same_v<pl::index_t, int>, "indices are read as ints");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw pl::argument_error(fmt::format("mesh '{}': it is a folder", path));
  std::ifstream in(path);
  if (!in) throw pl::argument_error(fmt::format("mesh '{}': cannot open it (no such file, or not readable)", path));
  // Reads the next whitespace-separated token into `token`; returns why there is none, or "".
  std::string token;
  const auto next_token = [&]() -> std::string {
    in.width(mesh_detail::longest_token + 1);
    if (!(in >> token)) return "the file ends there";
    if (std::ssize(token) > mesh_detail::longest_token) {
      return fmt::format("{:?}... is longer than any number ({} characters at most)", token.substr(0, 40),
                         mesh_detail::longest_token);
    }
    return {};
  };
  mesh m;
  int* const counts[4] = {&m.nnode, &m.ncell, &m.nedge, &m.nbedge};
  const char* const names[4] = {"nnode", "ncell", "nedge", "nbedge"};
  for (int k = 0; k < 4; ++k) {
    std::string why = next_token();
    if (why.empty()) why = mesh_detail::convert(token, *counts[k]);
    if (!why.empty()) {
      throw pl::argument_error(fmt::format(
          "mesh '{}': the first line must be four counts: nnode ncell nedge nbedge; {}: {}", path, names[k], why));
    }
  }
  if (m.nnode < 1 || m.ncell < 1 || m.nedge < 0 || m.nbedge < 0) {
    throw pl::argument_error(
        fmt::format("mesh '{}': counts {} {} {} {}: nodes and cells must be at least 1, edges at least 0", path,
                    m.nnode, m.ncell, m.nedge, m.nbedge));
  }
  // Every value but the last takes at least two characters: counts a file cannot hold are
  // refused before anything is read for them. A pipe has no size: its vectors are reserved up
  // to reserved_without_size values and grow as values arrive, so that counts it does not hold
  // end at its end, and not in an allocation.
  const auto bytes = std::filesystem::file_size(path, ec);
  const bool sized = !ec;
  const auto values = 2 * std::uintmax_t(m.nnode) + 4 * std::uintmax_t(m.ncell) + 4 * std::uintmax_t(m.nedge) +
                      4 * std::uintmax_t(m.nbedge);
  if (sized && 2 * values - 1 > bytes) {
    throw pl::argument_error(
        fmt::format("mesh '{}': counts {} {} {} {} need {} values, more than its {} bytes can hold", path, m.nnode,
                    m.ncell, m.nedge, m.nbedge, values, bytes));
  }
  const auto reserve = [&](auto& out, int count, int per_entry) {
    const std::size_t n = std::size_t(count) * std::size_t(per_entry);
    out.reserve(sized ? n : std::min(n, mesh_detail::reserved_without_size));
  };
  // Appends value k (from 0) of entry i (from 0) of the `count` entries of section `what`.
  const auto append = [&](auto& out, const char* what, int i, int count, int k, int per_entry) {
    typename std::remove_reference_t<decltype(out)>::value_type v{};
    std::string why = next_token();
    if (why.empty()) why = mesh_detail::convert(token, v);
    if (!why.empty()) {
      throw pl::argument_error(fmt::format("mesh '{}': {} {} (from 0) of {}: cannot read its value {} of {}: {}", path,
                                           what, i, count, k + 1, per_entry, why));
    }
    out.push_back(v);
  };
  reserve(m.x, m.nnode, 2);
  for (int n = 0; n < m.nnode; ++n) {
    for (int k = 0; k < 2; ++k) append(m.x, "node", n, m.nnode, k, 2);
  }
  reserve(m.cell, m.ncell, 4);
  for (int c = 0; c < m.ncell; ++c) {
    for (int k = 0; k < 4; ++k) append(m.cell, "cell", c, m.ncell, k, 4);
  }
  reserve(m.edge, m.nedge, 2);
  reserve(m.ecell, m.nedge, 2);
  for (int e = 0; e < m.nedge; ++e) {
    for (int k = 0; k < 4; ++k) append(k < 2 ? m.edge : m.ecell, "edge", e, m.nedge, k, 4);
  }
  reserve(m.bedge, m.nbedge, 2);
  reserve(m.becell, m.nbedge, 1);
  reserve(m.bound, m.nbedge, 1);
  for (int e = 0; e < m.nbedge; ++e) {
    append(m.bedge, "boundary edge", e, m.nbedge, 0, 4);
    append(m.bedge, "boundary edge", e, m.nbedge, 1, 4);
    append(m.becell, "boundary edge", e, m.nbedge, 2, 4);
    append(m.bound, "boundary edge", e, m.nbedge, 3, 4);
    if (m.bound.back() != 1 && m.bound.back() != 2) {
      throw pl::argument_error(
          fmt::format("mesh '{}': boundary edge {} (from 0) of {}: bound {} is neither 1 (wall) nor 2 (far field)",
                      path, e, m.nbedge, m.bound.back()));
    }
  }
  // Only the start of what follows is read: it is quoted, and may be a pipe's endless junk.
  in.width(40);
  if (in >> token) {
    throw pl::argument_error(
        fmt::format("mesh '{}': {:?} after the last boundary edge: the counts say the file ends there", path, token));
  }
  return m;
}

// Writes `m` to `path` in the same layout, through a temporary file renamed into place: the
// file is whole or untouched. Coordinates keep every bit (%.17g), so reading back gives the
// same mesh.
inline void write_mesh(const mesh& m, const std::string& path) {
  const std::string temporary = path + ".part";
  std::FILE* f = std::fopen(temporary.c_str(), "w");
  if (f == nullptr)
    throw pl::argument_error(fmt::format("mesh '{}': cannot write it ({})", path, std::strerror(errno)));
  std::error_code ec;
  // fmt::print throws where a write fails: the partial file goes either way.
  try {
    fmt::print(f, "{} {} {} {}\n", m.nnode, m.ncell, m.nedge, m.nbedge);
    for (int n = 0; n < m.nnode; ++n)
      fmt::print(f, "{:.17g} {:.17g}\n", m.x[2 * std::size_t(n)], m.x[2 * std::size_t(n) + 1]);
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
