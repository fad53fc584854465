// SPDX-License-Identifier: MIT
// The emitter's OP2 two-level plan (conflicts::blocks): a work-group per block, whose increments
// are staged in local memory colour by colour and then combined with the dats.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/format.hpp"
#include "parloop/order/block_plan.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

inline std::vector<emitter::stage_group> emitter::stage_groups() const {
  std::vector<stage_group> groups;
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (!staged(p)) continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const stage_group& x) {
      return x.first->data == p.data && x.first->map == p.map && x.first->mode == p.mode;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), stage_group{&p, 0, 0, {}});
    // Arities over 64 are refused before a plan's kernel is generated (exec/loop/colors.hpp).
    for (int j = 0; j < p.arity && j < 64; ++j) {
      if (p.kind == arg_kind::whole_map || j == p.slot) g->slot_bits |= std::uint64_t{1} << j;
    }
    g->params.push_back(i);
  }
  for (stage_group& g : groups) g.slots = std::popcount(g.slot_bits);
  return groups;
}

// conflicts::blocks, OP2's two-level plan (order/block_plan.hpp): the work-group runs block
// pl_block, the launch's range being positions in the plan's block order, a work-item per
// element. Each staged group has the block's copy of its distinct targets in local memory
// (at most block * slots of them), starting at the identity. The elements run the body with
// private staged copies; then the block's element colours take turns adding them into the
// local copy (a barrier between turns: no two elements of a colour share a target); then the
// work-group combines the local copy with the dat, plainly, since no other block of this
// launch reaches those targets.
inline void emitter::block_elements(source_writer& w) {
  using namespace parloop::detail;  // the plan's layout
  const std::string_view index = index_type();
  const int block = parloop::detail::block_size(strategy_);
  const std::vector<stage_group> groups = stage_groups();
  w.line("const int pl_local = {};", d_.local_id());
  w.line("const int pl_block = pl_plan[pl_plan[{}] + pl_start + (int){}];", static_cast<int>(plan_block_order),
         d_.group_id());
  w.line("const int pl_info = pl_plan[{}] + pl_block * pl_plan[{}];", static_cast<int>(plan_block_info),
         static_cast<int>(plan_info_stride));
  w.line("const int pl_count = pl_plan[pl_info + {}];", info_count);
  w.line("const {} pl_first = ({})pl_plan[pl_info + {}];", index, index, info_first);
  w.line("const {} pl_me = pl_first - ({})pl_plan[{}] + pl_local;", index, index, static_cast<int>(plan_start));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const ir::param& p = *groups[g].first;
    const int size = block * groups[g].slots * p.dim;
    w.line("{};", d_.local_array(type(p.type), parloop::detail::format("pl_stage{}", g), size));
    features_.group_memory += static_cast<std::size_t>(size) * scalar_bytes(p.type);
    w.line("const int pl_targets{} = pl_plan[pl_info + {}];", g, info_targets_count(static_cast<int>(g)));
    w.line("for (int pl_t = pl_local; pl_t < pl_targets{} * {}; pl_t += {}) pl_stage{}[pl_t] = {};", g, p.dim, block, g,
           identity(p.mode, p.type));
  }
  for (const stage_group& g : groups) {
    for (const std::size_t i : g.params) {
      const ir::param& p = k_.params[i];
      declare_private(w, i, p);
      const std::string start = identity(p.mode, p.type);
      for_elements(
          w, i, p,
          [&](const std::string& mine, const std::string&) { return parloop::detail::format("{} = {};", mine, start); },
          false);
    }
  }
  w.line("{}", d_.barrier());
  w.open("if (pl_local < pl_count)");
  // Only arguments reached through pl_e need it, and an unused variable is a warning.
  if (std::any_of(k_.params.begin(), k_.params.end(),
                  [&](const ir::param& p) { return p.kind != arg_kind::global && !staged(p); })) {
    w.line("const {} pl_e = pl_first + pl_local;", index);
  }
  element(w, {}, 0);
  w.close();
  w.line("const int pl_color = pl_local < pl_count ? pl_plan[pl_plan[{}] + pl_me] : -1;",
         static_cast<int>(plan_thread_color));
  w.open("for (int pl_c = 0; pl_c < pl_plan[pl_info + {}]; ++pl_c)", info_colors);
  w.open("if (pl_color == pl_c)");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const std::size_t i : groups[g].params) {
      const ir::param& p = k_.params[i];
      const std::string stage = parloop::detail::format("pl_stage{}", g);
      const auto add = [&](const std::string& slot, const auto& mine_of) {
        w.line("const int pl_place = pl_plan[pl_plan[{}] + pl_me * {} + {}];", plan_local(static_cast<int>(g)), p.arity,
               slot);
        for_components(w, p.dim, [&](const std::string& k) {
          return combine(p, parloop::detail::format("{}[pl_place * {} + {}]", stage, p.dim, k), mine_of(k));
        });
      };
      if (p.kind == arg_kind::whole_map) {
        w.open("for (int pl_j = 0; pl_j < {}; ++pl_j)", p.arity);
        add("pl_j", [&](const std::string& k) {
          return raw() ? parloop::detail::format("arg{}[pl_j * {} + {}]", i, p.dim, k)
                       : parloop::detail::format("arg{}[pl_j][{}]", i, k);
        });
        w.close();
      } else {
        w.open("");
        add(std::to_string(p.slot), [&](const std::string& k) { return parloop::detail::format("arg{}[{}]", i, k); });
        w.close();
      }
    }
  }
  w.close();
  w.line("{}", d_.barrier());
  w.close();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const ir::param& p = *groups[g].first;
    // A dat combined into through two maps is two groups whose targets may meet: the first's
    // stores are done (and seen) before the second's begin.
    const bool after_same_dat = std::any_of(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(g),
                                            [&](const stage_group& earlier) { return earlier.first->data == p.data; });
    if (after_same_dat) w.line("{}", d_.barrier_with_global());
    w.open("for (int pl_t = pl_local; pl_t < pl_targets{}; pl_t += {})", g, block);
    w.line("const {} pl_at = {};", index,
           element_start(
               p, parloop::detail::format("({})pl_plan[pl_plan[{}] + pl_plan[pl_info + {}] + pl_t]", index,
                                          plan_targets(static_cast<int>(g)), info_targets_start(static_cast<int>(g)))));
    for_components(w, p.dim, [&](const std::string& k) {
      return combine(p, dat_value(p, "pl_at", k), parloop::detail::format("pl_stage{}[pl_t * {} + {}]", g, p.dim, k));
    });
    w.close();
  }
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
