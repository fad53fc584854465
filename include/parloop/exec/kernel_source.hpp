// SPDX-License-Identifier: MIT
// A strategy turns a kernel's IR into what a backend builds: the generated source and, made
// with it, the grid-size functor that launches it, its block size and its buffer layout.
#pragma once

#include <type_traits>
#include <variant>
#include <vector>

#include "parloop/codegen/generate.hpp"
#include "parloop/codegen/layout.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/grid.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::exec {

// The functor giving the number of work-groups the strategy's kernel needs for a range.
inline grid_size_functor grid_size(const strategy& s) {
  parloop::detail::check_strategy(s);
  return std::visit(
      [](const auto& v) {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, split_n_across_workgroups>) {
          return grid_size_functor(ceil_div(end() - start(), constant(v.block)));
        } else if constexpr (std::is_same_v<S, grid_stride>) {
          return grid_size_functor(
              min(ceil_div(end() - start(), constant(v.block)), compute_units() * constant(v.waves)));
        } else {
          return grid_size_functor(ceil_div(ceil_div(end() - start(), constant(v.per_item)), constant(v.block)));
        }
      },
      s);
}

struct kernel_source {
  codegen::generated_source code;
  grid_size_functor grid;
  int block;
  std::vector<codegen::kernel_buffer> layout;
};

// The kernel in `dialect` for strategy `s`, with its launch geometry.
inline kernel_source make_source(const ir::kernel& k, codegen::dialect_kind dialect, const strategy& s,
                                 const codegen::options& o = {}) {
  grid_size_functor grid = grid_size(s);
  return {codegen::generate(k, dialect, s, o), std::move(grid), parloop::detail::block_size(s), codegen::buffers(k, o)};
}

}  // namespace parloop::exec
