// SPDX-License-Identifier: MIT
// OP2's two-level plan of a loop that combines through maps (conflicts::blocks): the range cut
// into blocks of `block` consecutive elements, a work-group each; blocks coloured so that no two
// of a colour reach one target (one launch per colour); within a block, elements coloured the
// same way; and, for each staged group (a dat combined into through a map), each block's
// distinct targets and each element's place among them, where the work-group stages its
// increments in local memory before adding them to the dat.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/order/coloring.hpp"

namespace parloop::detail {

// A dat combined into through a map, by every argument with that dat, map and mode: the slots
// of each element's row those arguments use (a bit each).
struct staged_group {
  std::span<const index_t> values;
  int arity;
  index_t to_size;
  std::uint64_t slots;
};

// Where the plan's parts start, as its first ints say: the generated kernel reads them there.
enum plan_field : int {
  plan_start,         // the range's first element
  plan_block_order,   // the blocks, colour after colour
  plan_block_info,    // per block: first element, elements, colours, then per group its targets' start and count
  plan_thread_color,  // per element of the range: its colour within its block
  plan_info_stride,   // ints per block of plan_block_info
  plan_groups_start,  // per group: where its local places, then its targets, start
};
constexpr int plan_local(int group) { return plan_groups_start + 2 * group; }
constexpr int plan_targets(int group) { return plan_groups_start + 2 * group + 1; }
constexpr int info_first = 0, info_count = 1, info_colors = 2;
constexpr int info_targets_start(int group) { return 3 + 2 * group; }
constexpr int info_targets_count(int group) { return 4 + 2 * group; }

struct block_plan {
  // The plan as the kernel reads it: the fields above, then the parts. Per group, each element
  // of the range has `arity` places (one per slot of its row; slots the group does not use
  // hold 0), and each block its distinct targets.
  std::vector<std::int32_t> ints;
  // Block colour c is positions [offsets[c], offsets[c + 1]) of the block order.
  std::vector<index_t> offsets;
  // `ints` on the device, uploaded on first use.
  mirrored_array array;

  block_plan(std::vector<std::int32_t> plan, std::vector<index_t> color_offsets, transfer_stats& transfers)
      : ints(std::move(plan)),
        offsets(std::move(color_offsets)),
        array(ints.data(), ints.size() * sizeof(std::int32_t), transfers) {}
  block_plan(const block_plan&) = delete;
  block_plan& operator=(const block_plan&) = delete;

  int colors() const { return static_cast<int>(offsets.size()) - 1; }
};

// The plan of [start, end) for a loop of `kernel` (named in its errors).
inline std::shared_ptr<block_plan> plan_blocks(const std::string& kernel, index_t start, index_t end, int block,
                                               std::span<const combined_targets> through,
                                               std::span<const staged_group> groups, transfer_stats& transfers) {
  const index_t n = end - start;
  // In 64 bits: a range near the end of index_t's would overflow the last block's end.
  const auto blocks = static_cast<index_t>((std::int64_t{n} + block - 1) / block);
  const auto first_of = [&](index_t b) { return static_cast<index_t>(start + std::int64_t{b} * block); };
  const auto last_of = [&](index_t b) {
    return static_cast<index_t>(std::min<std::int64_t>(end, start + (std::int64_t{b} + 1) * block));
  };
  const std::vector<std::size_t> sizes = space_sizes(through);

  std::vector<index_t> block_counts, offsets;
  const std::vector<int> block_color = block_colors(start, end, block, through, block_counts);
  const std::vector<index_t> order = sorted_by_color(block_color, block_counts, offsets);

  // A block's targets numbered from 0 in each space (for its elements' colours) and in each
  // group (its staging places): `seen` says whether a target has its number in this block yet.
  struct numbering {
    std::vector<index_t> seen, number;
    index_t next = 0;
    explicit numbering(std::size_t size) : seen(size, -1), number(size, 0) {}
    index_t operator()(std::size_t t, index_t b, std::vector<index_t>* found = nullptr) {
      if (seen[t] != b) {
        seen[t] = b;
        number[t] = next++;
        if (found != nullptr) found->push_back(static_cast<index_t>(t));
      }
      return number[t];
    }
  };
  std::vector<numbering> in_space;
  for (const std::size_t s : sizes) in_space.emplace_back(s);
  std::vector<numbering> in_group;
  for (const staged_group& g : groups) in_group.emplace_back(static_cast<std::size_t>(g.to_size));

  const int stride = info_targets_count(static_cast<int>(groups.size()) - 1) + 1;
  std::vector<std::int32_t> thread_color(static_cast<std::size_t>(n));
  std::vector<std::int32_t> info(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(stride));
  std::vector<std::vector<std::int32_t>> places(groups.size());
  std::vector<std::vector<index_t>> targets(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    places[g].assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(groups[g].arity), 0);

  std::vector<index_t> local_counts;
  std::vector<std::size_t> local_sizes(sizes.size());
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> local_targets;
  for (index_t b = 0; b < blocks; ++b) {
    const index_t first = first_of(b), count = last_of(b) - first;
    // The elements' targets, numbered within the block, then coloured.
    for (auto& s : in_space) s.next = 0;
    local_targets.assign(static_cast<std::size_t>(count), {});
    for (index_t i = 0; i < count; ++i) {
      for_each_target(through, first + i, [&](std::size_t space, std::size_t t) {
        local_targets[static_cast<std::size_t>(i)].emplace_back(space, static_cast<std::size_t>(in_space[space](t, b)));
      });
    }
    for (std::size_t s = 0; s < sizes.size(); ++s) local_sizes[s] = static_cast<std::size_t>(in_space[s].next);
    const std::vector<int> colors = greedy_colors(
        static_cast<std::size_t>(count), local_sizes,
        [&](std::size_t i, auto&& visit) {
          for (const auto& [space, t] : local_targets[i]) visit(space, t);
        },
        local_counts);
    for (index_t i = 0; i < count; ++i)
      thread_color[static_cast<std::size_t>(first - start + i)] = colors[static_cast<std::size_t>(i)];

    std::int32_t* row = &info[static_cast<std::size_t>(b) * static_cast<std::size_t>(stride)];
    row[info_first] = static_cast<std::int32_t>(first);
    row[info_count] = static_cast<std::int32_t>(count);
    row[info_colors] = static_cast<std::int32_t>(local_counts.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const staged_group& group = groups[g];
      in_group[g].next = 0;
      row[info_targets_start(static_cast<int>(g))] = static_cast<std::int32_t>(targets[g].size());
      for (index_t i = 0; i < count; ++i) {
        const index_t e = first + i;
        for (int j = 0; j < group.arity; ++j) {
          if (((group.slots >> j) & 1u) == 0) continue;
          const auto t = static_cast<std::size_t>(
              group.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(group.arity) +
                           static_cast<std::size_t>(j)]);
          places[g][static_cast<std::size_t>(e - start) * static_cast<std::size_t>(group.arity) +
                    static_cast<std::size_t>(j)] = static_cast<std::int32_t>(in_group[g](t, b, &targets[g]));
        }
      }
      row[info_targets_count(static_cast<int>(g))] = static_cast<std::int32_t>(in_group[g].next);
    }
  }

  // The parts after the fields, in their order.
  std::size_t total = static_cast<std::size_t>(plan_groups_start) + 2 * groups.size() + order.size() + info.size() +
                      thread_color.size();
  for (std::size_t g = 0; g < groups.size(); ++g) total += places[g].size() + targets[g].size();
  if (total > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw data_error(
        parloop::detail::format("par_loop '{}': a two-level plan of {} elements needs {} ints, more than 32-bit "
                                "offsets reach; use conflicts::colors or atomics for this loop",
                                kernel, n, total));
  }
  std::vector<std::int32_t> ints(static_cast<std::size_t>(plan_groups_start) + 2 * groups.size());
  ints[plan_start] = static_cast<std::int32_t>(start);
  ints[plan_info_stride] = stride;
  const auto append = [&](int field, const auto& part) {
    ints[static_cast<std::size_t>(field)] = static_cast<std::int32_t>(ints.size());
    for (const auto v : part) ints.push_back(static_cast<std::int32_t>(v));
  };
  append(plan_block_order, order);
  append(plan_block_info, info);
  append(plan_thread_color, thread_color);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    append(plan_local(static_cast<int>(g)), places[g]);
    append(plan_targets(static_cast<int>(g)), targets[g]);
  }
  return std::make_shared<block_plan>(std::move(ints), std::move(offsets), transfers);
}

}  // namespace parloop::detail
