// SPDX-License-Identifier: MIT
// A colouring of a loop's elements such that no two elements of one colour reach one target
// through the maps the loop combines into (INC, MIN, MAX): the elements in colour order, which a
// device runs a colour per launch.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
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
  // The range's elements, colour after colour, each colour in element order.
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

// Greedy, in element order, 32 colours per pass as OP2 colours: each target keeps a bit per
// colour of the pass that reaches it; an element takes the lowest colour none of its targets
// has, or waits for the next pass when all 32 are taken.
inline std::vector<index_t> color_counts_and_colors(index_t start, index_t end, std::span<const combined_targets> through,
                                                    std::vector<int>& color) {
  int spaces = 0;
  for (const combined_targets& t : through) spaces = std::max(spaces, t.space + 1);
  std::vector<std::vector<std::uint32_t>> taken(static_cast<std::size_t>(spaces));
  for (const combined_targets& t : through) taken[static_cast<std::size_t>(t.space)].resize(static_cast<std::size_t>(t.space_size));
  color.assign(static_cast<std::size_t>(end - start), -1);
  std::vector<index_t> waiting(static_cast<std::size_t>(end - start));
  for (index_t e = start; e < end; ++e) waiting[static_cast<std::size_t>(e - start)] = e;
  std::vector<index_t> counts;
  const auto target = [](const combined_targets& t, index_t e, int j) {
    return static_cast<std::size_t>(t.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(t.arity) + static_cast<std::size_t>(j)]);
  };
  for (int pass = 0; !waiting.empty(); ++pass) {
    for (auto& bits : taken) std::fill(bits.begin(), bits.end(), 0u);
    std::vector<index_t> next;
    for (const index_t e : waiting) {
      std::uint32_t used = 0;
      for (const combined_targets& t : through) {
        for (int j = t.first_slot; j <= t.last_slot; ++j) used |= taken[static_cast<std::size_t>(t.space)][target(t, e, j)];
      }
      if (used == ~0u) {
        next.push_back(e);
        continue;
      }
      const int c = std::countr_one(used);
      for (const combined_targets& t : through) {
        for (int j = t.first_slot; j <= t.last_slot; ++j) taken[static_cast<std::size_t>(t.space)][target(t, e, j)] |= 1u << c;
      }
      const int colour = 32 * pass + c;
      color[static_cast<std::size_t>(e - start)] = colour;
      if (counts.size() <= static_cast<std::size_t>(colour)) counts.resize(static_cast<std::size_t>(colour) + 1, 0);
      ++counts[static_cast<std::size_t>(colour)];
    }
    waiting.swap(next);
  }
  return counts;
}

// Colours [start, end): the elements sorted by colour (a counting sort, stable).
inline std::shared_ptr<coloring> color_elements(index_t start, index_t end, std::span<const combined_targets> through,
                                                transfer_stats& transfers) {
  std::vector<int> color;
  const std::vector<index_t> counts = color_counts_and_colors(start, end, through, color);
  std::vector<index_t> offsets(counts.size() + 1, 0);
  for (std::size_t c = 0; c < counts.size(); ++c) offsets[c + 1] = offsets[c] + counts[c];
  std::vector<index_t> order(static_cast<std::size_t>(end - start));
  std::vector<index_t> next(offsets.begin(), offsets.end() - 1);
  for (index_t e = start; e < end; ++e) order[static_cast<std::size_t>(next[static_cast<std::size_t>(color[static_cast<std::size_t>(e - start)])]++)] = e;
  return std::make_shared<coloring>(std::move(order), std::move(offsets), transfers);
}

}  // namespace parloop::detail
