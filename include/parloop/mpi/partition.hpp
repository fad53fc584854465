// SPDX-License-Identifier: MIT
// Partitioning a set's elements into parts (ranks): a graph partitioner -- METIS's k-way, or
// Scotch's where parloop is built with it -- over the graph mpi/graph.hpp makes from a map, or
// recursive coordinate bisection over the elements' coordinates where there is no graph worth
// cutting. Every way gives each element a part in [0, parts), the same on every run; a part may
// hold nothing (more parts than elements).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>  // scotch.h uses FILE
#include <functional>
#include <numeric>
#include <span>
#include <string_view>
#include <vector>

#include <metis.h>
#if PARLOOP_HAVE_SCOTCH
extern "C" {
#include <scotch.h>
}
#endif

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/graph.hpp"

namespace parloop::mpi {

enum class graph_partitioner : std::uint8_t { metis, scotch };

constexpr std::string_view to_string(graph_partitioner p) { return p == graph_partitioner::metis ? "metis" : "scotch"; }

// Scotch where parloop is built with it: it cuts fewer edges than METIS for parts as nearly
// equal (docs/performance.md, Partitioning).
inline constexpr graph_partitioner default_graph_partitioner =
#if PARLOOP_HAVE_SCOTCH
    graph_partitioner::scotch;
#else
    graph_partitioner::metis;
#endif

namespace detail {

inline void check_parts(std::string_view what, int parts) {
  if (parts < 1) throw argument_error(parloop::detail::format("{}: at least 1 part, not {}", what, parts));
}

// Refuses a graph a partitioner could read out of bounds or misread: each vertex's neighbours
// ascending without repeats, and each edge in both of its vertices' lists (METIS and Scotch take
// an undirected graph).
inline void check_graph(const graph& g) {
  const auto n = static_cast<std::int64_t>(g.offsets.size()) - 1;
  if (n < 0 || g.offsets.front() != 0 || static_cast<std::size_t>(g.offsets.back()) != g.neighbours.size()) {
    throw argument_error(
        parloop::detail::format("partition_graph: the offsets ({} of them, from {} to {}) do not frame the {} "
                                "neighbours",
                                g.offsets.size(), g.offsets.empty() ? 0 : g.offsets.front(),
                                g.offsets.empty() ? 0 : g.offsets.back(), g.neighbours.size()));
  }
  for (std::int64_t v = 0; v < n; ++v) {
    const index_t first = g.offsets[static_cast<std::size_t>(v)], last = g.offsets[static_cast<std::size_t>(v) + 1];
    if (last < first)
      throw argument_error(parloop::detail::format("partition_graph: the offsets decrease at vertex {}", v));
    for (index_t i = first; i < last; ++i) {
      const index_t w = g.neighbours[static_cast<std::size_t>(i)];
      if (w < 0 || w >= n || w == v) {
        throw argument_error(
            parloop::detail::format("partition_graph: vertex {} has neighbour {} ({} vertices)", v, w, n));
      }
      if (i > first && w <= g.neighbours[static_cast<std::size_t>(i) - 1]) {
        throw argument_error(
            parloop::detail::format("partition_graph: vertex {}'s neighbours are not ascending at {}", v, w));
      }
    }
  }
  for (std::int64_t v = 0; v < n; ++v) {
    for (index_t i = g.offsets[static_cast<std::size_t>(v)]; i < g.offsets[static_cast<std::size_t>(v) + 1]; ++i) {
      const auto w = static_cast<std::size_t>(g.neighbours[static_cast<std::size_t>(i)]);
      const auto first = g.neighbours.begin() + g.offsets[w], last = g.neighbours.begin() + g.offsets[w + 1];
      if (!std::binary_search(first, last, static_cast<index_t>(v))) {
        throw argument_error(
            parloop::detail::format("partition_graph: vertex {} has neighbour {}, which does not have it", v, w));
      }
    }
  }
}

inline std::vector<int> metis_kway(const graph& g, int parts) {
  idx_t vertices = g.vertices(), constraints = 1, n_parts = parts, cut = 0;
  std::vector<idx_t> offsets(g.offsets.begin(), g.offsets.end()), neighbours(g.neighbours.begin(), g.neighbours.end());
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;  // the same partition on every run and rank
  std::vector<idx_t> part(static_cast<std::size_t>(vertices));
  const int status = METIS_PartGraphKway(&vertices, &constraints, offsets.data(), neighbours.data(), nullptr, nullptr,
                                         nullptr, &n_parts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    throw error(parloop::detail::format("METIS_PartGraphKway failed (status {}) cutting {} vertices into {} parts",
                                        status, vertices, parts));
  }
  return {part.begin(), part.end()};
}

#if PARLOOP_HAVE_SCOTCH
// Scotch runs in a context of its own: deterministic (its threads otherwise race to different
// cuts) and with random numbers of its own, seeded alike, so the same graph is cut the same way.
inline std::vector<int> scotch_part(const graph& g, int parts) {
  std::vector<SCOTCH_Num> offsets(g.offsets.begin(), g.offsets.end()),
      neighbours(g.neighbours.begin(), g.neighbours.end()), part(static_cast<std::size_t>(g.vertices()));
  SCOTCH_Context context;
  SCOTCH_Graph plain, bound;
  SCOTCH_Strat strategy;
  if (SCOTCH_contextInit(&context) != 0) throw error("SCOTCH_contextInit failed");
  SCOTCH_graphInit(&plain);
  SCOTCH_graphInit(&bound);
  SCOTCH_stratInit(&strategy);
  int status = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  if (status == 0) status = SCOTCH_contextRandomClone(&context);
  if (status == 0) {
    SCOTCH_contextRandomSeed(&context, 1);
    status = SCOTCH_graphBuild(&plain, 0, g.vertices(), offsets.data(), nullptr, nullptr, nullptr,
                               static_cast<SCOTCH_Num>(neighbours.size()), neighbours.data(), nullptr);
  }
  if (status == 0) status = SCOTCH_contextBindGraph(&context, &plain, &bound);
  if (status == 0) status = SCOTCH_graphPart(&bound, parts, &strategy, part.data());
  SCOTCH_stratExit(&strategy);
  SCOTCH_graphExit(&bound);
  SCOTCH_graphExit(&plain);
  SCOTCH_contextExit(&context);
  if (status != 0) {
    throw error(parloop::detail::format("Scotch failed (status {}) cutting {} vertices into {} parts", status,
                                        g.vertices(), parts));
  }
  return {part.begin(), part.end()};
}
#endif

}  // namespace detail

// The part of each vertex of `g`, cutting as few edges as the partitioner finds with parts of
// about equal size (METIS allows 3% above the mean, Scotch 1%). A graph without edges is cut
// into runs.
inline std::vector<int> partition_graph(const graph& g, int parts,
                                        graph_partitioner which = default_graph_partitioner) {
  detail::check_parts("partition_graph", parts);
  detail::check_graph(g);
  const index_t n = g.vertices();
  if (parts >= n) {
    std::vector<int> part(static_cast<std::size_t>(n));
    std::iota(part.begin(), part.end(), 0);
    return part;
  }
  if (parts == 1 || g.neighbours.empty()) return shares_by_position(n, parts);
  if (which == graph_partitioner::metis) return detail::metis_kway(g, parts);
#if PARLOOP_HAVE_SCOTCH
  return detail::scotch_part(g, parts);
#else
  throw backend_unavailable("partition_graph: this parloop was built without Scotch (libscotch-dev); use METIS");
#endif
}

// Recursive coordinate bisection: the elements (`dim` coordinates each) are split across the
// axis of their largest extent, in proportion to the parts on each side, and each side again,
// until each part has its elements: parts differ by one element at most. Ties in a coordinate
// go by element number.
inline std::vector<int> partition_coordinates(std::span<const double> coordinates, int dim, int parts) {
  detail::check_parts("partition_coordinates", parts);
  if (dim < 1 || coordinates.size() % static_cast<std::size_t>(dim) != 0) {
    throw argument_error(parloop::detail::format(
        "partition_coordinates: {} coordinates are not a whole number of points of {}", coordinates.size(), dim));
  }
  for (std::size_t i = 0; i < coordinates.size(); ++i) {
    if (!std::isfinite(coordinates[i])) {
      throw argument_error(parloop::detail::format("partition_coordinates: coordinate {} of element {} is {}",
                                                   i % static_cast<std::size_t>(dim), i / static_cast<std::size_t>(dim),
                                                   coordinates[i]));
    }
  }
  const std::size_t n = coordinates.size() / static_cast<std::size_t>(dim);
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> part(n);
  const auto at = [&](index_t e, int axis) {
    return coordinates[static_cast<std::size_t>(e) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(axis)];
  };
  const std::function<void(std::size_t, std::size_t, int, int)> bisect = [&](std::size_t first, std::size_t last,
                                                                             int first_part, int count) {
    if (count == 1 || first == last) {
      for (std::size_t i = first; i < last; ++i) part[static_cast<std::size_t>(order[i])] = first_part;
      return;
    }
    int axis = 0;
    double widest = -1.0;
    for (int a = 0; a < dim; ++a) {
      const auto [lo, hi] = std::minmax_element(order.begin() + static_cast<std::ptrdiff_t>(first),
                                                order.begin() + static_cast<std::ptrdiff_t>(last),
                                                [&](index_t x, index_t y) { return at(x, a) < at(y, a); });
      if (at(*hi, a) - at(*lo, a) > widest) {
        widest = at(*hi, a) - at(*lo, a);
        axis = a;
      }
    }
    const int left = count / 2;
    const std::size_t split = first + (last - first) * static_cast<std::size_t>(left) / static_cast<std::size_t>(count);
    std::nth_element(
        order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(split),
        order.begin() + static_cast<std::ptrdiff_t>(last),
        [&](index_t x, index_t y) { return at(x, axis) < at(y, axis) || (at(x, axis) == at(y, axis) && x < y); });
    bisect(first, split, first_part, left);
    bisect(split, last, first_part + left, count - left);
  };
  bisect(0, n, 0, parts);
  return part;
}

}  // namespace parloop::mpi
