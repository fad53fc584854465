// SPDX-License-Identifier: MIT
// A strategy turns a kernel's IR into what a backend builds: the generated source and, made
// with it, the grid-size functor that launches it, its block size and its buffer layout.
#pragma once

#include <algorithm>
#include <type_traits>
#include <variant>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/ir/grid.hpp"
#include "parloop/ir/kernel.hpp"
#include "parloop/ir/layout.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

// The functor giving the number of work-groups the strategy's kernel needs for a range (of
// columns, over an extruded set: `cells` of them per column where it runs a cell per work-item).
inline ir::grid_size_functor grid_size(const strategy& s, int cells = 0) {
  parloop::detail::check_strategy(s);
  using ir::compute_units, ir::constant, ir::end, ir::start;
  const ir::grid_term elements = cells > 0 ? (end() - start()) * constant(cells) : end() - start();
  return std::visit(
      [&](const auto& v) {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, split_n_across_workgroups>) {
          return ir::grid_size_functor(ceil_div(elements, constant(v.block)));
        } else if constexpr (std::is_same_v<S, grid_stride>) {
          return ir::grid_size_functor(min(ceil_div(elements, constant(v.block)), compute_units() * constant(v.waves)));
        } else if constexpr (std::is_same_v<S, chunked>) {
          return ir::grid_size_functor(ceil_div(ceil_div(end() - start(), constant(v.per_item)), constant(v.block)));
        } else {
          // Work-item i takes the width from (start / width + i) * width: the last one needed
          // holds end - 1, so there are (end - 1) / width - start / width + 1 of them, none for
          // an empty range. (ceil_div(x + 1, width) - 1 is x / width for x >= 0.)
          const ir::grid_term w = constant(v.width);
          const ir::grid_term items =
              min(ceil_div(end(), w) - ceil_div(start() + constant(1), w) + constant(1), end() - start());
          return ir::grid_size_functor(ceil_div(items, constant(v.block)));
        }
      },
      s);
}

struct kernel_source {
  generated_source code;
  ir::grid_size_functor grid;
  int block;
  std::vector<ir::kernel_buffer> layout;
};

// The strategy a kernel is generated for: vectors_across_workgroups gives a loop without
// direct arguments nothing to move as vectors, nor a coloured loop, whose elements are not
// side by side; they run one element per work-item. A two-level plan runs a block of
// elements per work-group, one per work-item, whatever the strategy's shape: only its block
// size counts.
inline strategy for_kernel(const ir::kernel& k, const strategy& s, conflicts writes = conflicts::atomics) {
  if (writes == conflicts::blocks) return split_n_across_workgroups{parloop::detail::block_size(s)};
  const auto* v = std::get_if<vectors_across_workgroups>(&s);
  if (v == nullptr ||
      (writes == conflicts::atomics &&
       std::any_of(k.params.begin(), k.params.end(), [&](const ir::param& p) { return moves_as_vectors(k, p); }))) {
    return s;
  }
  return split_n_across_workgroups{v->block};
}

// The kernel in `dialect` for strategy `s`, with its launch geometry.
inline kernel_source make_source(const ir::kernel& k, const dialect& dialect, const strategy& requested,
                                 const ir::source_options& o = {}) {
  parloop::detail::check_strategy(requested);
  const strategy s = for_kernel(k, requested, o.writes);
  // A two-level plan's launch is a work-group per block of its range (positions in the plan's
  // block order).
  ir::grid_size_functor grid = o.writes == conflicts::blocks ? ir::grid_size_functor(ir::end() - ir::start())
                               : runs_cells(k, s, o.writes)  ? grid_size(s, k.extrusion.count)
                                                             : grid_size(s);
  return {generate(k, dialect, s, o), std::move(grid), parloop::detail::block_size(s), buffers(k, o)};
}
inline kernel_source make_source(const ir::kernel& k, dialect_kind dialect, const strategy& requested,
                                 const ir::source_options& o = {}) {
  return make_source(k, dialect_of(dialect), requested, o);
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
