// SPDX-License-Identifier: MIT
// The colouring of a loop run a colour at a time (conflicts::colors), or its two-level plan
// (conflicts::blocks): what its arguments combine into through maps, coloured once per range
// (and block size) and kept with the first such map.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/order/block_plan.hpp"
#include "parloop/order/coloring.hpp"

namespace parloop::detail {

// What a loop's arguments combine into through maps, without allocating: at most one entry
// per argument. Staged groups (for a two-level plan) are the distinct (dat, map, mode) among
// them, in argument order, as the generated kernel numbers them. The arrays are not cleared:
// only the first count, spaces and n_groups entries are read.
struct combined_args {
  std::array<const map_state*, max_loop_args> maps;
  std::array<combined_targets, max_loop_args> through;
  std::array<const Set*, max_loop_args> sets;
  std::array<staged_group, max_loop_args> groups;
  std::array<std::pair<const void*, access>, max_loop_args> group_keys;  // dat and mode
  std::array<const map_state*, max_loop_args> group_maps;
  std::size_t count = 0, spaces = 0, n_groups = 0;
  // The widest map combined through: a plan numbers slots in 64 bits.
  int widest = 0;
};

// Adds the targets an argument keeps apart, if it does (INC, MIN, MAX through a map, or an RW or
// WRITE whose elements meet: colours_through_map); a target space per target set, numbered by
// first appearance. Only those that combine are staged by a two-level plan.
inline void add_combined(const arg_view& a, combined_args& out) {
  if (!colours_through_map(a)) return;
  const map_state& m = *a.map;
  std::size_t space = 0;
  while (space < out.spaces && !(*out.sets[space] == m.to)) ++space;
  if (space == out.spaces) out.sets[out.spaces++] = &m.to;
  const bool whole = a.kind == arg_kind::whole_map;
  // Over an extruded set's interior facets, slot arity + j is slot j of the cell above.
  const int slot = a.slot % m.arity;
  out.maps[out.count] = &m;
  out.through[out.count++] = {m.colour_targets(),      m.arity,
                              whole ? 0 : slot,        whole ? m.arity - 1 : slot,
                              static_cast<int>(space), m.colour_target_count()};
  if (!combines_through_map(a)) return;
  const std::pair<const void*, access> key{a.owner, a.mode};
  std::size_t g = 0;
  while (g < out.n_groups && !(out.group_keys[g] == key && out.group_maps[g] == &m)) ++g;
  if (g == out.n_groups) {
    out.group_keys[g] = key;
    out.group_maps[g] = &m;
    out.groups[out.n_groups++] = {m.values, m.arity, m.to.size(), 0};
  }
  out.widest = std::max(out.widest, m.arity);
  if (m.arity > 64) return;
  for (int j = whole ? 0 : slot; j <= (whole ? m.arity - 1 : slot); ++j) out.groups[g].slots |= std::uint64_t{1} << j;
}

inline bool same_targets(const combined_targets& a, const combined_targets& b) {
  return a.values.data() == b.values.data() && a.arity == b.arity && a.first_slot == b.first_slot &&
         a.last_slot == b.last_slot && a.space == b.space;
}
inline bool same_group(const staged_group& a, const staged_group& b) {
  return a.values.data() == b.values.data() && a.arity == b.arity && a.slots == b.slots;
}

// One colouring or two-level plan kept for a loop over [start, end) of a map's `from`.
struct kept_coloring {
  index_t start, end;
  std::uint64_t last_use;  // of map_colorings::uses
  std::vector<std::pair<std::weak_ptr<const map_state>, combined_targets>> through;
  // A plan's or a block colouring's block size; 0 for a colouring of elements. A plan's staged
  // groups.
  int block;
  std::vector<staged_group> groups;
  // The elements' colouring, or the blocks' (block > 0, no plan: the threads backend's).
  std::shared_ptr<coloring> colors;
  std::shared_ptr<block_plan> plan;
  // The subset whose positions [start, end) were coloured (subset_state::id); 0: the elements
  // [start, end) themselves.
  std::uint64_t subset = 0;
};

// The colourings and two-level plans of loops over ranges of a map's `from` that combine into
// its targets (and maybe of others', held weakly: one whose map has gone is never found again),
// kept by the map (map_state::colorings). Made once per range, maps and block, and kept, since the
// values never change -- at most max_kept of them, the least recently used going first, so that
// loops over ever new ranges do not keep (and keep uploaded) one colouring each. Used by the
// runtime's thread.
struct map_colorings {
  static constexpr std::size_t max_kept = 32;
  std::vector<kept_coloring> kept;
  std::uint64_t uses = 0;
};

// What kept_for finds or makes.
enum class kept_kind { element_colors, plan, block_colors };

// The kept colouring of elements (block 0), plan or colouring of blocks (their block size) of
// [r.start, r.end) for a loop of `kernel` with these arguments, of which at least one combines
// through a map; made on a miss. Found again without allocating. Over a subset, r is positions
// in its elements (current: subset_state::loop_elements), and the colouring is kept under it.
inline const kept_coloring& kept_for(const std::string& kernel, range r, int block, kept_kind kind,
                                     std::span<const arg_view> args, const subset_state* over) {
  combined_args c;
  for (const arg_view& a : args) add_combined(a, c);
  if (kind == kept_kind::plan && c.widest > 64) {
    throw argument_error(
        parloop::detail::format("par_loop '{}': conflicts::blocks stages through maps of arity at most 64, and "
                                "this loop combines through one of arity {}: use conflicts::colors or atomics",
                                kernel, c.widest));
  }
  const std::span<const combined_targets> through(c.through.data(), c.count);
  const std::span<const staged_group> groups(c.groups.data(), kind == kept_kind::plan ? c.n_groups : 0);
  const map_state& keeper = *c.maps[0];
  if (!keeper.colorings) keeper.colorings = std::make_shared<map_colorings>();
  map_colorings& kept = *keeper.colorings;
  const std::uint64_t subset = over != nullptr ? over->id : 0;
  const std::span<const index_t> elements =
      over != nullptr ? std::span<const index_t>(over->elements) : std::span<const index_t>{};
  for (kept_coloring& k : kept.kept) {
    if (k.start != r.start || k.end != r.end || k.block != block || (k.plan != nullptr) != (kind == kept_kind::plan) ||
        k.through.size() != c.count || k.groups.size() != groups.size() || k.subset != subset) {
      continue;
    }
    bool same = true;
    for (std::size_t i = 0; i < c.count && same; ++i) {
      same = !k.through[i].first.expired() && k.through[i].first.lock().get() == c.maps[i] &&
             same_targets(k.through[i].second, through[i]);
    }
    for (std::size_t g = 0; g < groups.size() && same; ++g) same = same_group(k.groups[g], groups[g]);
    if (same) {
      k.last_use = ++kept.uses;
      return k;
    }
  }
  transfer_stats& transfers = keeper.from.runtime().state()->transfers;
  kept_coloring made{r.start, r.end, ++kept.uses, {}, block, {groups.begin(), groups.end()}, nullptr, nullptr, subset};
  switch (kind) {
    case kept_kind::element_colors: made.colors = color_elements(r.start, r.end, through, transfers, elements); break;
    case kept_kind::plan: made.plan = plan_blocks(kernel, r.start, r.end, block, through, groups, transfers); break;
    case kept_kind::block_colors:
      made.colors = color_blocks(r.start, r.end, block, through, transfers, elements);
      break;
  }
  for (std::size_t i = 0; i < c.count; ++i) made.through.emplace_back(c.maps[i]->weak_from_this(), through[i]);
  // Those whose other maps have gone can never be found again.
  std::erase_if(kept.kept, [](const kept_coloring& k) {
    return std::any_of(k.through.begin(), k.through.end(), [](const auto& t) { return t.first.expired(); });
  });
  if (kept.kept.size() >= map_colorings::max_kept) {
    kept.kept.erase(std::min_element(kept.kept.begin(), kept.kept.end(),
                                     [](const auto& a, const auto& b) { return a.last_use < b.last_use; }));
  }
  kept.kept.push_back(std::move(made));
  return kept.kept.back();
}

inline coloring& coloring_for(const std::string& kernel, range r, std::span<const arg_view> args,
                              const subset_state* over) {
  return *kept_for(kernel, r, 0, kept_kind::element_colors, args, over).colors;
}
inline block_plan& plan_for(const std::string& kernel, range r, int block, std::span<const arg_view> args) {
  return *kept_for(kernel, r, block, kept_kind::plan, args, nullptr).plan;
}
inline const coloring& block_coloring_for(const std::string& kernel, range r, int block, std::span<const arg_view> args,
                                          const subset_state* over) {
  return *kept_for(kernel, r, block, kept_kind::block_colors, args, over).colors;
}

}  // namespace parloop::detail
