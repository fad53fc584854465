// SPDX-License-Identifier: MIT
// What a device backend does where neither the program nor its settings say: how dats lie and
// combining writes are kept apart (a GPU's way or a CPU's), and a GPU's autotuning candidates.
#pragma once

#include <algorithm>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/dat_layout.hpp"
#include "parloop/core/strategy.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// What suits a device where the settings name nothing: on a GPU, dats by components (each
// component's values of neighbouring work-items side by side) and atomic combining writes. On a
// CPU a work-item runs through consecutive elements, whose components are then side by side only
// element by element, and an atomic is a locked instruction where colours cost nothing but the
// colouring (docs/performance.md, Airfoil on the CPU).
struct device_defaults {
  dat_layout dats = dat_layout::soa;
  conflicts writes = conflicts::atomics;
};
inline constexpr device_defaults gpu_defaults{}, cpu_defaults{dat_layout::aos, conflicts::colors};

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

PARLOOP_COLD_END
