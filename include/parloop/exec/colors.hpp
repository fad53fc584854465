// SPDX-License-Identifier: MIT
// The colouring of a loop run a colour at a time (conflicts::colors): what its arguments
// combine into through maps, coloured once per range and kept with the first such map.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/core/coloring.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/range.hpp"

namespace parloop::detail {

// Whether an argument combines (INC, MIN, MAX) into a dat through a map.
template <class A>
inline constexpr bool combines_through_map = false;
template <class T, int Dim, access Mode, arg_kind Kind>
inline constexpr bool combines_through_map<arg<T, Dim, Mode, Kind>> =
    (Kind == arg_kind::indirect || Kind == arg_kind::whole_map) &&
    (Mode == access::inc || Mode == access::min || Mode == access::max);

// What a loop's arguments combine into through maps, without allocating: at most one entry
// per argument.
template <std::size_t N>
struct combined_args {
  std::array<const map_state*, N> maps{};
  std::array<combined_targets, N> through{};
  std::array<const Set*, N> sets{};
  std::size_t count = 0, spaces = 0;
};

// Adds the targets an argument combines into, if it does (INC, MIN, MAX through a map); a
// target space per target set, numbered by first appearance.
template <std::size_t N, class T, int Dim, access Mode, arg_kind Kind>
void add_combined(const arg<T, Dim, Mode, Kind>& a, combined_args<N>& out) {
  if constexpr (combines_through_map<arg<T, Dim, Mode, Kind>>) {
    const map_state& m = *a.map;
    std::size_t space = 0;
    while (space < out.spaces && !(*out.sets[space] == m.to)) ++space;
    if (space == out.spaces) out.sets[out.spaces++] = &m.to;
    const bool whole = Kind == arg_kind::whole_map;
    out.maps[out.count] = &m;
    out.through[out.count++] = {m.values, m.arity, whole ? 0 : a.slot, whole ? m.arity - 1 : a.slot,
                                static_cast<int>(space), m.to.size()};
  }
}

inline bool same_targets(const combined_targets& a, const combined_targets& b) {
  return a.values.data() == b.values.data() && a.arity == b.arity && a.first_slot == b.first_slot &&
         a.last_slot == b.last_slot && a.space == b.space;
}

// The colouring of [r.start, r.end) for a loop with these arguments, of which at least one
// combines through a map. Found again without allocating.
template <class... Args>
  requires(combines_through_map<Args> || ...)
coloring& coloring_for(range r, const Args&... args) {
  combined_args<sizeof...(Args)> c;
  (add_combined(args, c), ...);
  const std::span<const combined_targets> through(c.through.data(), c.count);
  const map_state& keeper = *c.maps[0];
  for (const map_state::kept_coloring& k : keeper.colorings) {
    if (k.start != r.start || k.end != r.end || k.through.size() != c.count) continue;
    bool same = true;
    for (std::size_t i = 0; i < c.count && same; ++i) {
      same = !k.through[i].first.expired() && k.through[i].first.lock().get() == c.maps[i] &&
             same_targets(k.through[i].second, through[i]);
    }
    if (same) return *k.colors;
  }
  map_state::kept_coloring made{r.start, r.end, {},
                                color_elements(r.start, r.end, through, keeper.from.runtime().state()->transfers)};
  for (std::size_t i = 0; i < c.count; ++i) made.through.emplace_back(c.maps[i]->weak_from_this(), through[i]);
  keeper.colorings.push_back(std::move(made));
  return *keeper.colorings.back().colors;
}

}  // namespace parloop::detail
