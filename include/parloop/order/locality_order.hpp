// SPDX-License-Identifier: MIT
// Orderings of a mesh's sets for locality, computed from the maps between them: a mesh numbered
// by its generator or partitioner in any order runs as fast as one numbered structurally once
// its elements are renumbered so that neighbours sit near each other in memory.
//  - One set (the cells) is ordered by reverse Cuthill-McKee over the graph its maps make
//    (order/mesh_graph.hpp).
//  - The sets that map into it follow by the elements they reach (edges sorted by their cells),
//    and the sets it maps into by first touch (nodes in the order the ordered cells reach them).
// An order is `old_of_new`: its i-th entry is the element, in the numbering given, that comes
// i-th. Plain functions over plain arrays: the set, map and dat handles apply them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/order/mesh_graph.hpp"

namespace parloop::detail {

// Sorts [first, last) stably by `less`: the few a mesh's element has (its neighbours, the edges
// of a cell) by insertion in place, where std::stable_sort would allocate a buffer each call.
template <class It, class Less>
void insertion_or_stable_sort(It first, It last, Less less) {
  constexpr std::ptrdiff_t few = 16;
  if (last - first > few) return std::stable_sort(first, last, less);
  for (It i = first; i != last; ++i) {
    const auto v = *i;
    It j = i;
    for (; j != first && less(v, *(j - 1)); --j) *j = *(j - 1);
    *j = v;
  }
}

// The vertices of `g` in breadth-first order from `start` over those not yet `seen`, each
// vertex's unseen neighbours by increasing degree (Cuthill-McKee), appended to `order`; marks
// them seen. Returns where in `order` the walk's last level begins.
inline std::size_t cuthill_mckee_from(const adjacency& g, index_t start, std::vector<char>& seen,
                                      std::vector<index_t>& order) {
  std::size_t last_level = order.size();
  std::size_t level_end = order.size() + 1;
  order.push_back(start);
  seen[static_cast<std::size_t>(start)] = 1;
  std::vector<index_t> found;
  for (std::size_t i = last_level; i < order.size(); ++i) {
    // Every vertex of the level before has been walked: those found since are the next level.
    if (i == level_end) {
      last_level = i;
      level_end = order.size();
    }
    found.clear();
    for (const index_t w : g.of(order[i])) {
      if (seen[static_cast<std::size_t>(w)] == 0) {
        seen[static_cast<std::size_t>(w)] = 1;
        found.push_back(w);
      }
    }
    insertion_or_stable_sort(found.begin(), found.end(),
                             [&](index_t a, index_t b) { return g.degree(a) < g.degree(b); });
    // Appended one by one: GCC 13 takes the range insert for an overflow (-Wstringop-overflow).
    for (const index_t w : found) order.push_back(w);
  }
  return last_level;
}

// A start for Cuthill-McKee in `start`'s component, of nearly the greatest eccentricity: the
// lowest-degree vertex of the last level of a breadth-first walk from `start` (George and Liu's
// first step). Their further rounds, walking again from there while that finds more levels, find
// little more on a mesh (a level more, for no narrower an order), and each walk of a large,
// randomly numbered graph is mostly cache misses. Leaves `seen` as it found it.
inline index_t peripheral_vertex(const adjacency& g, index_t start, std::vector<char>& seen) {
  std::vector<index_t> walked;
  const std::size_t last_level = cuthill_mckee_from(g, start, seen, walked);
  for (const index_t u : walked) seen[static_cast<std::size_t>(u)] = 0;
  return *std::min_element(walked.begin() + static_cast<std::ptrdiff_t>(last_level), walked.end(),
                           [&](index_t a, index_t b) { return g.degree(a) < g.degree(b); });
}

// Reverse Cuthill-McKee: an order of g's vertices that keeps neighbours' numbers close (a small
// bandwidth), component by component.
inline std::vector<index_t> reverse_cuthill_mckee(const adjacency& g) {
  std::vector<char> seen(static_cast<std::size_t>(g.size()), 0);
  std::vector<index_t> order;
  order.reserve(static_cast<std::size_t>(g.size()));
  for (index_t v = 0; v < g.size(); ++v) {
    if (seen[static_cast<std::size_t>(v)] == 0) (void)cuthill_mckee_from(g, peripheral_vertex(g, v, seen), seen, order);
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// The numbers an order gives: new_of_old[old_of_new[i]] == i.
inline std::vector<index_t> inverse_order(std::span<const index_t> old_of_new) {
  std::vector<index_t> new_of_old(old_of_new.size());
  for (std::size_t i = 0; i < old_of_new.size(); ++i)
    new_of_old[static_cast<std::size_t>(old_of_new[i])] = static_cast<index_t>(i);
  return new_of_old;
}

// The rows of `m`, a set that maps into an ordered set, sorted by the new numbers of their
// targets (each row's smallest, then its next smallest; rows with more that tie on those keep
// their order): edges by the cells they touch. A counting sort by the smallest puts each
// target's rows together; those few are then sorted by their next smallest.
inline std::vector<index_t> order_by_targets(const map_rows& m, std::span<const index_t> new_of_old) {
  const std::size_t rows = m.rows(), targets = new_of_old.size();
  // A row of one target sorts after those of two that share it: its next smallest is `targets`.
  std::vector<index_t> low(rows), next(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    auto a = static_cast<index_t>(targets), b = static_cast<index_t>(targets);
    for (const index_t t : m.row(r)) {
      const index_t n = new_of_old[static_cast<std::size_t>(t)];
      if (n < a)
        b = std::exchange(a, n);
      else if (n < b)
        b = n;
    }
    low[r] = a, next[r] = b;
  }
  // Row counts fit an index_t, as the rows are a set's elements: half the bytes of a size_t's
  // to miss in the cache.
  std::vector<index_t> end(targets + 2, 0);
  for (const index_t a : low) ++end[static_cast<std::size_t>(a) + 1];
  std::partial_sum(end.begin(), end.end(), end.begin());
  std::vector<index_t> order(rows);
  for (std::size_t r = 0; r < rows; ++r)
    order[static_cast<std::size_t>(end[static_cast<std::size_t>(low[r])]++)] = static_cast<index_t>(r);
  const auto by_next = [&](index_t x, index_t y) {
    return next[static_cast<std::size_t>(x)] < next[static_cast<std::size_t>(y)];
  };
  for (std::size_t k = 0, begin = 0; k <= targets; begin = static_cast<std::size_t>(end[k++])) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(begin);
    insertion_or_stable_sort(first, order.begin() + end[k], by_next);
  }
  return order;
}

// The `targets` elements of the set `m` maps into, in the order its rows, taken as `rows` lists
// them, first reach them; those no row reaches after, in their order: nodes by the cells. An
// element of `rows` past m's last row has none.
inline std::vector<index_t> order_by_first_touch(const map_rows& m, std::span<const index_t> rows, index_t targets) {
  std::vector<char> touched(static_cast<std::size_t>(targets), 0);
  std::vector<index_t> order;
  order.reserve(static_cast<std::size_t>(targets));
  for (const index_t r : rows) {
    if (static_cast<std::size_t>(r) >= m.rows()) continue;
    for (const index_t t : m.row(static_cast<std::size_t>(r))) {
      if (touched[static_cast<std::size_t>(t)] == 0) {
        touched[static_cast<std::size_t>(t)] = 1;
        order.push_back(t);
      }
    }
  }
  for (index_t t = 0; t < targets; ++t) {
    if (touched[static_cast<std::size_t>(t)] == 0) order.push_back(t);
  }
  return order;
}

// A mesh as the orderings see it: its sets' sizes and the maps between them. A map may give rows
// for only the first elements of its source set (a rank's maps give those the rank executes).
struct mesh_links {
  struct link {
    int from = 0, to = 0;
    map_rows rows;
  };
  std::vector<index_t> set_sizes;
  std::vector<link> maps;
};

// An order of every set of `mesh` with `first` in `first_order`: from the sets ordered so far,
// each set that maps into one by its targets and each set one maps into by first touch, as the
// file's top says; a set no map links to those keeps its order, and so do the elements past a
// map's last row, after those it orders.
inline std::vector<std::vector<index_t>> orders_following(const mesh_links& mesh, int first,
                                                          std::vector<index_t> first_order) {
  const std::size_t sets = mesh.set_sizes.size();
  std::vector<std::vector<index_t>> order(sets), new_of_old(sets);
  const auto f = static_cast<std::size_t>(first);
  order[f] = std::move(first_order);
  new_of_old[f] = inverse_order(order[f]);
  std::vector<int> queue{first};
  std::vector<char> done(sets, 0);
  done[f] = 1;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const auto s = static_cast<std::size_t>(queue[q]);
    const auto follow = [&](int t, std::vector<index_t> made) {
      const auto u = static_cast<std::size_t>(t);
      for (auto e = static_cast<index_t>(made.size()); e < mesh.set_sizes[u]; ++e) made.push_back(e);
      order[u] = std::move(made);
      new_of_old[u] = inverse_order(order[u]);
      done[u] = 1;
      queue.push_back(t);
    };
    for (const mesh_links::link& l : mesh.maps) {
      if (static_cast<std::size_t>(l.to) == s && done[static_cast<std::size_t>(l.from)] == 0)
        follow(l.from, order_by_targets(l.rows, new_of_old[s]));
    }
    for (const mesh_links::link& l : mesh.maps) {
      if (static_cast<std::size_t>(l.from) == s && done[static_cast<std::size_t>(l.to)] == 0) {
        follow(l.to, order_by_first_touch(l.rows, order[s], mesh.set_sizes[static_cast<std::size_t>(l.to)]));
      }
    }
  }
  for (std::size_t s = 0; s < sets; ++s) {
    if (done[s] == 0) {
      order[s].resize(static_cast<std::size_t>(mesh.set_sizes[s]));
      std::iota(order[s].begin(), order[s].end(), index_t{0});
    }
  }
  return order;
}

// An order of every set of `mesh` for locality: `first` by reverse Cuthill-McKee over the graph
// its maps make, the others following it (orders_following).
inline std::vector<std::vector<index_t>> locality_orders(const mesh_links& mesh, int first) {
  std::vector<map_rows> into;
  std::vector<std::pair<map_rows, index_t>> out_of;
  for (const mesh_links::link& l : mesh.maps) {
    if (l.to == first && l.from != first) into.push_back(l.rows);
    if (l.from == first) out_of.emplace_back(l.rows, mesh.set_sizes[static_cast<std::size_t>(l.to)]);
  }
  const auto f = static_cast<std::size_t>(first);
  return orders_following(mesh, first, reverse_cuthill_mckee(graph_through(mesh.set_sizes[f], into, out_of)));
}

}  // namespace parloop::detail
