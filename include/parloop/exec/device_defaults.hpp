// SPDX-License-Identifier: MIT
// What a device backend does where the program names nothing, and what the environment may say
// instead, read once when the backend opens: how dats lie and combining writes are kept apart
// (a GPU's way or a CPU's), whether generated code checks indices, fast math, and a GPU's
// autotuning candidates.
#pragma once

#include <algorithm>
#include <vector>

#include "parloop/codegen/layout.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/dat_layout.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/strategy.hpp"

namespace parloop::detail {

// What suits a device where the environment names nothing: on a GPU, dats by components (each
// component's values of neighbouring work-items side by side) and atomic combining writes. On a
// CPU a work-item runs through consecutive elements, whose components are then side by side only
// element by element, and an atomic is a locked instruction where colours cost nothing but the
// colouring (docs/performance.md, Airfoil on the CPU).
struct device_defaults {
  dat_layout dats = dat_layout::soa;
  conflicts writes = conflicts::atomics;
};
inline constexpr device_defaults gpu_defaults{}, cpu_defaults{dat_layout::aos, conflicts::colors};

// Whether generated code checks computed indices (PARLOOP_CHECK_INDICES=0 turns it off), and
// how the device keeps dats (PARLOOP_DAT_LAYOUT, else the device's own way).
inline codegen::options codegen_options_from_environment(dat_layout preferred) {
  return {.check_indices = switch_from_environment("PARLOOP_CHECK_INDICES", true,
                                                   "check computed indices on the device", "do not"),
          .dats = dat_layout_from_environment(preferred)};
}

// Whether device compilers may trade IEEE accuracy for speed (approximate division, square root
// and transcendentals): PARLOOP_FAST_MATH=1 turns it on; off, host and device agree to rounding.
inline bool fast_math_from_environment() {
  return switch_from_environment("PARLOOP_FAST_MATH", false, "the device compiler's fast math", "IEEE arithmetic");
}

// A GPU's candidates for autotuning, `preferred` first: one element per work-item in blocks of
// 128 to 512, vectors of two or four elements per work-item, and grids of four or eight blocks
// of 256 per compute unit (a reduction's partials are fewer then).
inline std::vector<strategy> gpu_tuning_strategies(const strategy& preferred) {
  std::vector<strategy> out{preferred};
  for (const strategy& s : {strategy(vectors_across_workgroups{128, 2}), strategy(vectors_across_workgroups{256, 2}),
                            strategy(vectors_across_workgroups{128, 4}), strategy(split_n_across_workgroups{128}),
                            strategy(split_n_across_workgroups{256}), strategy(split_n_across_workgroups{512}),
                            strategy(grid_stride{256, 4}), strategy(grid_stride{256, 8})}) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace parloop::detail
