// SPDX-License-Identifier: MIT
// A colouring of a loop's elements such that no two elements of one colour reach one target
// through the maps the loop combines into (INC, MIN, MAX): the elements in colour order, which a
// device runs a colour per launch.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/validity.hpp"

namespace parloop::detail {

// A map's targets that a loop combines into: `first_slot` to `last_slot` of each element's row,
// in a target space shared by every map to the same set (`space`).
struct combined_targets {
  std::span<const index_t> values;
  int arity;
  int first_slot, last_slot;
  int space;
  index_t space_size;
};

struct coloring {
  // The range's elements, colour after colour, each colour in position order (a subset's
  // elements, over one), or the blocks of a block colouring.
  std::vector<index_t> order;
  // Colour c is order[offsets[c], offsets[c + 1]).
  std::vector<index_t> offsets;
  // `order` on the device, uploaded on first use.
  mirrored_array array;

  coloring(std::vector<index_t> elements, std::vector<index_t> colour_offsets, transfer_stats& transfers)
      : order(std::move(elements)),
        offsets(std::move(colour_offsets)),
        array(order.data(), order.size() * sizeof(index_t), transfers) {}
  coloring(const coloring&) = delete;
  coloring& operator=(const coloring&) = delete;

  int colors() const { return static_cast<int>(offsets.size()) - 1; }
};

// The colours used so far at one target: all those below `lowest_free`, and the few above it,
// sorted. A target that many items reach holds a count; one that a few reach, a few colours
// (a bitset would hold every colour below the highest, per target).
class target_colors {
 public:
  std::size_t lowest_free() const { return lowest_free_; }
  bool has(std::size_t c) const { return c < lowest_free_ || std::binary_search(above_.begin(), above_.end(), c); }
  // The lowest colour at or above c that this target lacks.
  std::size_t next_free(std::size_t c) const {
    c = std::max(c, lowest_free_);
    for (auto it = std::lower_bound(above_.begin(), above_.end(), c); it != above_.end() && *it == c; ++it) ++c;
    return c;
  }
  void add(std::size_t c) {
    if (has(c)) return;  // an item that reaches this target twice
    if (c != lowest_free_) {
      above_.insert(std::lower_bound(above_.begin(), above_.end(), c), c);
      return;
    }
    // c closes the gap: the colours above that follow it on are below the lowest free now.
    auto it = above_.begin();
    for (lowest_free_ = c + 1; it != above_.end() && *it == lowest_free_; ++it) ++lowest_free_;
    above_.erase(above_.begin(), it);
  }

 private:
  std::size_t lowest_free_ = 0;
  std::vector<std::size_t> above_;
};

// First fit over `items`, in order: each takes the lowest colour (from `first_color` up) that
// no item before it with a target in common took. A target that many items reach costs each of
// them a step, not a pass.
template <class Targets>
void first_fit_colors(std::span<const std::size_t> items, int first_color, std::span<const std::size_t> space_sizes,
                      Targets&& targets, std::vector<int>& color, std::vector<index_t>& counts) {
  std::vector<std::vector<target_colors>> at(space_sizes.size());
  for (std::size_t s = 0; s < space_sizes.size(); ++s) at[s].resize(space_sizes[s]);
  std::vector<target_colors*> reached;
  for (const std::size_t i : items) {
    reached.clear();
    targets(i, [&](std::size_t space, std::size_t t) { reached.push_back(&at[space][t]); });
    std::size_t c = 0;
    for (const target_colors* t : reached) c = std::max(c, t->lowest_free());
    for (bool moved = true; moved;) {
      moved = false;
      for (const target_colors* t : reached) {
        if (t->has(c)) {
          c = t->next_free(c);
          moved = true;
        }
      }
    }
    for (target_colors* t : reached) t->add(c);
    const std::size_t colour = static_cast<std::size_t>(first_color) + c;
    color[i] = static_cast<int>(colour);
    if (counts.size() <= colour) counts.resize(colour + 1, 0);
    ++counts[colour];
  }
}

// A greedy colouring of `count` items, in order: each takes the lowest colour that no item before
// it with a target in common took. Passes of 32 colours as OP2 colours: each target keeps a bit
// per colour of the pass that reaches it; an item takes the lowest colour none of its targets
// has, or waits for the next pass when all 32 are taken. A pass that leaves most of its items
// waiting means targets that many items reach (every edge into one cell): pass after pass would
// visit them all again, quadratic in the items; first fit with each target's colours at hand
// colours the rest instead, alike. `targets(i, visit)` calls visit(space, target) for each
// target of item i, target < space_sizes[space]. Returns each item's colour; `counts` gets the
// items per colour, none empty.
template <class Targets>
std::vector<int> greedy_colors(std::size_t count, std::span<const std::size_t> space_sizes, Targets&& targets,
                               std::vector<index_t>& counts) {
  std::vector<std::vector<std::uint32_t>> taken(space_sizes.size());
  for (std::size_t s = 0; s < space_sizes.size(); ++s) taken[s].resize(space_sizes[s]);
  std::vector<int> color(count, -1);
  std::vector<std::size_t> waiting(count), next;
  for (std::size_t i = 0; i < count; ++i) waiting[i] = i;
  counts.clear();
  for (int pass = 0; !waiting.empty(); ++pass) {
    for (auto& bits : taken) std::fill(bits.begin(), bits.end(), 0u);
    next.clear();
    for (const std::size_t i : waiting) {
      std::uint32_t used = 0;
      targets(i, [&](std::size_t space, std::size_t t) { used |= taken[space][t]; });
      if (used == ~0u) {
        next.push_back(i);
        continue;
      }
      const int c = std::countr_one(used);
      targets(i, [&](std::size_t space, std::size_t t) { taken[space][t] |= 1u << c; });
      const int colour = 32 * pass + c;
      color[i] = colour;
      if (counts.size() <= static_cast<std::size_t>(colour)) counts.resize(static_cast<std::size_t>(colour) + 1, 0);
      ++counts[static_cast<std::size_t>(colour)];
    }
    if (next.size() > 2 * (waiting.size() - next.size())) {
      first_fit_colors(next, 32 * (pass + 1), space_sizes, targets, color, counts);
      break;
    }
    waiting.swap(next);
  }
  return color;
}

// Calls visit(space, target) for each target element e combines into.
template <class Visit>
void for_each_target(std::span<const combined_targets> through, index_t e, Visit&& visit) {
  for (const combined_targets& t : through) {
    for (int j = t.first_slot; j <= t.last_slot; ++j) {
      visit(
          static_cast<std::size_t>(t.space),
          static_cast<std::size_t>(
              t.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(t.arity) + static_cast<std::size_t>(j)]));
    }
  }
}

// The size of each target space.
inline std::vector<std::size_t> space_sizes(std::span<const combined_targets> through) {
  std::vector<std::size_t> sizes;
  for (const combined_targets& t : through) {
    if (sizes.size() <= static_cast<std::size_t>(t.space)) sizes.resize(static_cast<std::size_t>(t.space) + 1, 0);
    // Every map into one space numbers it alike; the largest size guards the tables all the same.
    sizes[static_cast<std::size_t>(t.space)] =
        std::max(sizes[static_cast<std::size_t>(t.space)], static_cast<std::size_t>(t.space_size));
  }
  return sizes;
}

// The positions of `color`'s items sorted by colour (a stable counting sort), and each
// colour's offsets.
inline std::vector<index_t> sorted_by_color(const std::vector<int>& color, const std::vector<index_t>& counts,
                                            std::vector<index_t>& offsets) {
  offsets.assign(counts.size() + 1, 0);
  for (std::size_t c = 0; c < counts.size(); ++c) offsets[c + 1] = offsets[c] + counts[c];
  std::vector<index_t> order(color.size());
  std::vector<index_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < color.size(); ++i)
    order[static_cast<std::size_t>(next[static_cast<std::size_t>(color[i])]++)] = static_cast<index_t>(i);
  return order;
}

// The element at position p of a loop: p itself, or, over a subset, its p-th element.
inline index_t element_at(std::span<const index_t> elements, std::int64_t p) {
  return elements.empty() ? static_cast<index_t>(p) : elements[static_cast<std::size_t>(p)];
}

// Colours the blocks of [start, end), `block` consecutive positions each (the last may be
// shorter), so that no two blocks of one colour reach one target: each block's colour; `counts`
// gets the blocks per colour. OP2's plan colours its blocks so, and so does the threads backend.
// Positions are elements, or, over a subset, positions in its `elements`.
inline std::vector<int> block_colors(index_t start, index_t end, int block, std::span<const combined_targets> through,
                                     std::vector<index_t>& counts, std::span<const index_t> elements = {}) {
  const auto blocks = static_cast<std::size_t>((std::int64_t{end} - start + block - 1) / block);
  return greedy_colors(
      blocks, space_sizes(through),
      [&](std::size_t b, auto&& visit) {
        const std::int64_t first = start + static_cast<std::int64_t>(b) * block;
        const std::int64_t last = std::min<std::int64_t>(end, first + block);
        for (std::int64_t p = first; p < last; ++p) for_each_target(through, element_at(elements, p), visit);
      },
      counts);
}

// Colours [start, end) (positions in `elements`, over a subset): its elements sorted by colour.
// Blocks of one element each: one colouring serves both.
inline std::shared_ptr<coloring> color_elements(index_t start, index_t end, std::span<const combined_targets> through,
                                                transfer_stats& transfers, std::span<const index_t> elements = {}) {
  std::vector<index_t> counts, offsets;
  const std::vector<int> color = block_colors(start, end, 1, through, counts, elements);
  std::vector<index_t> order = sorted_by_color(color, counts, offsets);
  for (index_t& e : order) e = element_at(elements, std::int64_t{start} + e);
  return std::make_shared<coloring>(std::move(order), std::move(offsets), transfers);
}

// The blocks of [start, end) sorted by colour: `order` holds block numbers (block b is positions
// start + b * block onwards).
inline std::shared_ptr<coloring> color_blocks(index_t start, index_t end, int block,
                                              std::span<const combined_targets> through, transfer_stats& transfers,
                                              std::span<const index_t> elements = {}) {
  std::vector<index_t> counts, offsets;
  const std::vector<int> color = block_colors(start, end, block, through, counts, elements);
  std::vector<index_t> order = sorted_by_color(color, counts, offsets);
  return std::make_shared<coloring>(std::move(order), std::move(offsets), transfers);
}

}  // namespace parloop::detail
