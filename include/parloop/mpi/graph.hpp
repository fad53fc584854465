// SPDX-License-Identifier: MIT
// The graph a partitioner cuts: the elements of a set as vertices, joined wherever one element
// of another set reaches two of them through a map (two cells across an edge, the four nodes
// of a cell), in compressed rows as METIS and Scotch take them, without self loops or repeated
// edges. And what a partition of it costs: the edges it cuts, the size of each part.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::mpi {

struct graph {
  // Vertex v's neighbours are neighbours[offsets[v]] up to neighbours[offsets[v + 1]], ascending.
  std::vector<index_t> offsets{0};
  std::vector<index_t> neighbours;
  index_t vertices() const { return static_cast<index_t>(offsets.size() - 1); }
};

// The graph on the `targets` elements of a map's target set in which the targets of each source
// element are joined: `values` holds the map's values, `arity` per source element.
inline graph joined_by(std::span<const index_t> values, int arity, index_t targets) {
  if (arity < 1) throw argument_error(parloop::detail::format("joined_by: a map's arity is at least 1, not {}", arity));
  if (targets < 0) throw argument_error(parloop::detail::format("joined_by: {} target elements", targets));
  if (values.size() % static_cast<std::size_t>(arity) != 0) {
    throw argument_error(parloop::detail::format(
        "joined_by: {} map values are not a whole number of elements of arity {}", values.size(), arity));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= targets) {
      throw argument_error(parloop::detail::format("joined_by: map value {} (element {}, slot {}) is outside [0, {})",
                                                   values[i], i / static_cast<std::size_t>(arity),
                                                   i % static_cast<std::size_t>(arity), targets));
    }
  }
  const auto n = static_cast<std::size_t>(arity);
  std::vector<std::pair<index_t, index_t>> pairs;
  pairs.reserve(values.size() * (n - 1));
  for (std::size_t e = 0; e < values.size(); e += n) {
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (values[e + a] != values[e + b]) pairs.emplace_back(values[e + a], values[e + b]);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  if (pairs.size() > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    throw argument_error(
        parloop::detail::format("joined_by: {} neighbours are more than a graph's 32-bit offsets hold", pairs.size()));
  }
  graph g;
  g.offsets.assign(static_cast<std::size_t>(targets) + 1, 0);
  g.neighbours.reserve(pairs.size());
  for (const auto& [from, to] : pairs) {
    ++g.offsets[static_cast<std::size_t>(from) + 1];
    g.neighbours.push_back(to);
  }
  for (std::size_t v = 0; v < static_cast<std::size_t>(targets); ++v) g.offsets[v + 1] += g.offsets[v];
  return g;
}

// The edges joining vertices of different parts, each counted once; `part` has a part per vertex.
inline std::int64_t edge_cut(const graph& g, std::span<const int> part) {
  if (part.size() != static_cast<std::size_t>(g.vertices())) {
    throw argument_error(parloop::detail::format("edge_cut: {} parts for {} vertices", part.size(), g.vertices()));
  }
  std::int64_t cut = 0;
  for (index_t v = 0; v < g.vertices(); ++v) {
    for (index_t i = g.offsets[static_cast<std::size_t>(v)]; i < g.offsets[static_cast<std::size_t>(v) + 1]; ++i) {
      const index_t w = g.neighbours[static_cast<std::size_t>(i)];
      if (v < w && part[static_cast<std::size_t>(v)] != part[static_cast<std::size_t>(w)]) ++cut;
    }
  }
  return cut;
}

// `n` elements in `parts` consecutive runs, as even as whole elements allow: element i in part
// i * parts / n. What has no graph, or no owner to follow, is shared this way.
inline std::vector<int> shares_by_position(index_t n, int parts) {
  std::vector<int> part(static_cast<std::size_t>(std::max<index_t>(n, 0)));
  for (index_t i = 0; i < n; ++i) {
    part[static_cast<std::size_t>(i)] = static_cast<int>(static_cast<std::int64_t>(i) * parts / n);
  }
  return part;
}

// How many elements each of `parts` parts holds.
inline std::vector<index_t> part_sizes(std::span<const int> part, int parts) {
  std::vector<index_t> sizes(static_cast<std::size_t>(std::max(parts, 0)), 0);
  for (const int p : part) {
    if (p < 0 || p >= parts) throw argument_error(parloop::detail::format("part_sizes: part {} of {}", p, parts));
    ++sizes[static_cast<std::size_t>(p)];
  }
  return sizes;
}

}  // namespace parloop::mpi
