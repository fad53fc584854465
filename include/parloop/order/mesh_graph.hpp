// SPDX-License-Identifier: MIT
// A set's elements as a graph for ordering them (order/locality_order.hpp): a map's values read
// row by row, and the neighbours its maps make -- two cells of one edge, or, where no map gives
// pairs, two cells of one node.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"

namespace parloop::detail {

// A map's values as the orderings read them: `arity` targets per row, rows one after another.
struct map_rows {
  std::span<const index_t> values;
  int arity = 1;

  std::size_t rows() const { return arity > 0 ? values.size() / static_cast<std::size_t>(arity) : 0; }
  std::span<const index_t> row(std::size_t r) const {
    return values.subspan(r * static_cast<std::size_t>(arity), static_cast<std::size_t>(arity));
  }
};

// An undirected graph of `size()` vertices, each one's neighbours (sorted, none repeated, not
// itself) in neighbours[offsets[v], offsets[v + 1]).
struct adjacency {
  std::vector<std::size_t> offsets{0};
  std::vector<index_t> neighbours;

  index_t size() const { return static_cast<index_t>(offsets.size() - 1); }
  std::span<const index_t> of(index_t v) const {
    return std::span<const index_t>(neighbours)
        .subspan(offsets[static_cast<std::size_t>(v)],
                 offsets[static_cast<std::size_t>(v) + 1] - offsets[static_cast<std::size_t>(v)]);
  }
  std::size_t degree(index_t v) const {
    return offsets[static_cast<std::size_t>(v) + 1] - offsets[static_cast<std::size_t>(v)];
  }
};

// A group larger than this links each member to the next rather than to every other: a node that
// a thousand cells share would otherwise give a million pairs, and a chain keeps them together.
inline constexpr std::size_t largest_clique = 32;

// The graph on `n` vertices in which the members of each group are neighbours.
// `for_each_group(visit)` calls visit(members) once for each group, the same groups each time it
// is called: groups are read where they lie (a map's rows), not copied into one list.
template <class ForEachGroup>
adjacency graph_of_groups(index_t n, ForEachGroup&& for_each_group) {
  const auto for_each_pair = [&](auto&& visit) {
    for_each_group([&](std::span<const index_t> m) {
      for (std::size_t i = 0; i < m.size(); ++i) {
        const std::size_t last = m.size() > largest_clique ? std::min(i + 2, m.size()) : m.size();
        for (std::size_t j = i + 1; j < last; ++j) {
          if (m[i] != m[j]) visit(static_cast<std::size_t>(m[i]), static_cast<std::size_t>(m[j]));
        }
      }
    });
  };
  // Each pair counted, then placed, both ways; then each vertex's neighbours sorted and their
  // repeats dropped in place, the kept ones moved down over the dropped.
  adjacency g;
  std::vector<std::size_t>& at = g.offsets;
  at.assign(static_cast<std::size_t>(n) + 1, 0);
  for_each_pair([&](std::size_t a, std::size_t b) { ++at[a + 1], ++at[b + 1]; });
  std::partial_sum(at.begin(), at.end(), at.begin());
  std::vector<index_t>& all = g.neighbours;
  all.resize(at.back());
  std::vector<std::size_t> next(at.begin(), at.end() - 1);
  for_each_pair([&](std::size_t a, std::size_t b) {
    all[next[a]++] = static_cast<index_t>(b);
    all[next[b]++] = static_cast<index_t>(a);
  });
  std::size_t kept = 0;
  for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(at[v]);
    const auto last = all.begin() + static_cast<std::ptrdiff_t>(at[v + 1]);
    std::sort(first, last);
    const auto unique_end = std::unique(first, last);
    at[v] = kept;
    kept = static_cast<std::size_t>(std::move(first, unique_end, all.begin() + static_cast<std::ptrdiff_t>(kept)) -
                                    all.begin());
  }
  at.back() = kept;
  all.resize(kept);
  return g;
}

// The graph of a set of `n` elements that the maps make: the targets of each row of a map into
// the set are neighbours (`into`); where no map into it has two targets a row, elements that
// reach a common target of a map out of the set (`out_of`, each with its target set's size).
inline adjacency graph_through(index_t n, std::span<const map_rows> into,
                               std::span<const std::pair<map_rows, index_t>> out_of) {
  if (std::any_of(into.begin(), into.end(), [](const map_rows& m) { return m.arity >= 2 && m.rows() > 0; })) {
    return graph_of_groups(n, [&](auto&& visit) {
      for (const map_rows& m : into) {
        if (m.arity < 2) continue;
        for (std::size_t r = 0; r < m.rows(); ++r) visit(m.row(r));
      }
    });
  }
  // Each target's sources, grouped by a counting sort.
  std::vector<std::size_t> starts{0};
  std::vector<index_t> members;
  for (const auto& [m, targets] : out_of) {
    std::vector<std::size_t> count(static_cast<std::size_t>(targets) + 1, 0);
    for (const index_t t : m.values) ++count[static_cast<std::size_t>(t) + 1];
    std::partial_sum(count.begin(), count.end(), count.begin());
    std::vector<index_t> sources(m.values.size());
    std::vector<std::size_t> next(count.begin(), count.end() - 1);
    for (std::size_t i = 0; i < m.values.size(); ++i) {
      sources[next[static_cast<std::size_t>(m.values[i])]++] =
          static_cast<index_t>(i / static_cast<std::size_t>(m.arity));
    }
    const std::size_t base = members.size();
    members.insert(members.end(), sources.begin(), sources.end());
    for (std::size_t t = 1; t < count.size(); ++t) starts.push_back(base + count[t]);
  }
  return graph_of_groups(n, [&](auto&& visit) {
    for (std::size_t g = 0; g + 1 < starts.size(); ++g) {
      visit(std::span<const index_t>(members).subspan(starts[g], starts[g + 1] - starts[g]));
    }
  });
}

}  // namespace parloop::detail
