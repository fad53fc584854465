// SPDX-License-Identifier: MIT
// The emitter's global reductions: each work-group combines its work-items' partial results
// (as a tree in local memory, or warp by warp), and the last group combines every group's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

// Global reductions. Each work-group combines its work-items' partials (group_tree) and
// its first work-item stores the group's partial at arg<N>_partials[group * dim + k]. The last
// group to do so (a ticket from an atomic counter) combines every group's partials, in group
// order, with the global's value on the device and resets the counter: the global stays on
// the device, and nothing waits for the launch. Every work-item reaches every barrier.
inline void emitter::reduce_in_groups(source_writer& w) {
  std::vector<std::size_t> reductions;
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    if (holding_of(k_.params[i]) == holding::partial) reductions.push_back(i);
  }
  if (reductions.empty()) return;
  const int block = parloop::detail::block_size(strategy_);
  // A two-level plan's kernel has it already.
  if (writes_ != conflicts::blocks) w.line("const int pl_local = {};", d_.local_id());
  for (const std::size_t i : reductions) {
    const ir::param& p = k_.params[i];
    const int slots = by_warps(block) ? block / d_.warp_size() : block;
    w.line("{};", d_.local_array(type(p.type), group_array(i), slots * p.dim));
    features_.group_memory += static_cast<std::size_t>(slots * p.dim) * scalar_bytes(p.type);
    group_tree(w, i, p, block);
    w.open("if (pl_local == 0)");
    for_components(w, p.dim, [&](const std::string& k) {
      const std::string slot = p.dim == 1
                                   ? std::string(d_.group_id())
                                   : parloop::detail::format("({}){} * {} + {}", index_type(), d_.group_id(), p.dim, k);
      return parloop::detail::format("arg{}_partials[{}] = {};", i, slot, in_group(i, p, "0", k));
    });
    w.close();
  }
  w.line("{};", d_.local_array("int", "pl_last_group", 1));
  features_.group_memory += sizeof(std::int32_t);
  w.open("if (pl_local == 0)");
  w.line("{}", d_.global_fence());
  w.line("pl_last_group[0] = {} == (int)({} - 1);", d_.atomic_ticket("pl_groups_done"), d_.groups());
  w.close();
  w.line("{}", d_.barrier_with_global());
  w.open("if (pl_last_group[0])");
  w.line("const {} pl_groups = {};", index_type(), d_.groups());
  for (const std::size_t i : reductions) {
    const ir::param& p = k_.params[i];
    const std::string start = identity(p.mode, p.type);
    for_components(w, p.dim,
                   [&](const std::string& k) { return parloop::detail::format("arg{}[{}] = {};", i, k, start); });
    w.open("for ({} pl_g = pl_local; pl_g < pl_groups; pl_g += {})", index_type(), block);
    const std::string partials = parloop::detail::format("(({})arg{}_partials)", d_.volatile_pointer(p.type), i);
    for_components(w, p.dim, [&](const std::string& k) {
      const std::string at = p.dim == 1 ? "pl_g" : parloop::detail::format("pl_g * {} + {}", p.dim, k);
      return combine(p, parloop::detail::format("arg{}[{}]", i, k), parloop::detail::format("{}[{}]", partials, at));
    });
    w.close();
    group_tree(w, i, p, block);
    w.open("if (pl_local == 0)");
    for_components(w, p.dim, [&](const std::string& k) {
      return combine(p, parloop::detail::format("data{}[{}]", p.data, k), in_group(i, p, "0", k));
    });
    w.close();
  }
  w.line("if (pl_local == 0) *pl_groups_done = 0;");
  w.close();
}

// `target = target op value` for a reduction's mode.
inline std::string emitter::combine(const ir::param& p, const std::string& target, const std::string& value) {
  if (p.mode == access::inc) return parloop::detail::format("{} += {};", target, value);
  return parloop::detail::format("{} = {};", target,
                                 minmax_call(p.mode == access::min ? ir::op::min : ir::op::max, p.type, target, value));
}

// Component k of work-item `item`'s value in the group's local array of reduction i.
inline std::string emitter::in_group(std::size_t i, const ir::param& p, const std::string& item, const std::string& k) {
  if (p.dim == 1) return parloop::detail::format("{}[{}]", group_array(i), item);
  if (item == "0") return parloop::detail::format("{}[{}]", group_array(i), k);
  return parloop::detail::format("{}[{} * {} + {}]", group_array(i), item, p.dim, k);
}

// Whether a group combines its values warp by warp in registers: where the dialect has warps
// and the block is whole warps (a missing lane cannot take part in a shuffle).
inline bool emitter::by_warps(int block) const {
  const int warp = d_.warp_size();
  return warp > 0 && block >= warp && block % warp == 0 && block / warp <= warp;
}

// Combines the group's arg<i> values; the result is then at work-item 0's place of the
// group's local array.
inline void emitter::group_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
  if (by_warps(block))
    warp_tree(w, i, p, block);
  else
    local_tree(w, i, p, block);
}

// Each work-item's arg<i> into the local array, combined as a tree (pl_half from the largest
// power of two below the block: any block size).
inline void emitter::local_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
  for_components(w, p.dim, [&](const std::string& k) {
    return parloop::detail::format("{} = arg{}[{}];", in_group(i, p, "pl_local", k), i, k);
  });
  int half = 1;
  while (half * 2 < block) half *= 2;
  w.line("{}", d_.barrier());
  w.open("for (int pl_half = {}; pl_half > 0; pl_half /= 2)", block > 1 ? half : 0);
  w.open("if (pl_local < pl_half && pl_local + pl_half < {})", block);
  for_components(w, p.dim, [&](const std::string& k) {
    return combine(p, in_group(i, p, "pl_local", k), in_group(i, p, "(pl_local + pl_half)", k));
  });
  w.close();
  w.line("{}", d_.barrier());
  w.close();
}

// Each warp combines its lanes' arg<i> by shuffles, its first lane puts the result at the
// warp's place in the local array, and the first warp combines those: one barrier, and a
// local array of one value per warp.
inline void emitter::warp_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
  const int warp = d_.warp_size();
  const auto shuffled = [&] {
    w.open("for (int pl_delta = {}; pl_delta > 0; pl_delta /= 2)", warp / 2);
    for_components(w, p.dim, [&](const std::string& k) {
      const std::string mine = parloop::detail::format("arg{}[{}]", i, k);
      return combine(p, mine, d_.shuffle_down(mine, "pl_delta"));
    });
    w.close();
  };
  shuffled();
  w.open("if (pl_local % {} == 0)", warp);
  for_components(w, p.dim, [&](const std::string& k) {
    return parloop::detail::format("{} = arg{}[{}];",
                                   in_group(i, p, parloop::detail::format("(pl_local / {})", warp), k), i, k);
  });
  w.close();
  w.line("{}", d_.barrier());
  w.open("if (pl_local < {})", warp);
  const std::string start = identity(p.mode, p.type);
  for_components(w, p.dim, [&](const std::string& k) {
    return parloop::detail::format("arg{}[{}] = pl_local < {} ? {} : {};", i, k, block / warp,
                                   in_group(i, p, "pl_local", k), start);
  });
  shuffled();
  w.open("if (pl_local == 0)");
  for_components(w, p.dim, [&](const std::string& k) {
    return parloop::detail::format("{} = arg{}[{}];", in_group(i, p, "0", k), i, k);
  });
  w.close();
  w.close();
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
