// SPDX-License-Identifier: MIT
// What autotuning (exec/device/autotune.hpp) chooses among and how a choice is kept: the candidate
// launches of a kernel on a device, the size class of a range, and the launch_choice record that
// stores the winner in the disk cache beside the kernels.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/grid.hpp"
#include "parloop/ir/kernel.hpp"
#include "parloop/ir/layout.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The launches an autotuned loop times, each as it runs (codegen::for_kernel): strategies that
// generate the same kernel for it are one candidate.
inline std::vector<loop_launch> launch_candidates(const ir::kernel& k, const device_backend& device) {
  std::vector<conflicts> ways{conflicts::atomics};
  if (ir::combines_through_maps(k)) ways.push_back(conflicts::colors);
  // A loop over an extruded set takes no two-level plan (exec/device/device_launch.hpp).
  if (ir::combines_through_maps(k) && k.extrusion.layers == 0) ways.push_back(conflicts::blocks);
  std::vector<loop_launch> out;
  for (const conflicts c : ways) {
    for (const strategy& s : device.tuning_strategies()) {
      const loop_launch l{codegen::for_kernel(k, s, c), c};
      if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    }
  }
  // A GPU's strategies run an extruded loop a cell per work-item where its cells cannot race
  // (codegen::runs_cells): a column per work-item, its layers in order, is timed against them.
  if (k.extrusion.layers > 0) {
    const loop_launch columns{chunked{128, 1}, conflicts::atomics};
    if (std::find(out.begin(), out.end(), columns) == out.end()) out.push_back(columns);
  }
  return out;
}

// A launch_choice record's binary: the strategy's alternative, the conflicts, and the strategy's
// two numbers (the second 0 where it has one), little-endian.
inline std::vector<unsigned char> choice_bytes(const loop_launch& l) {
  const auto [first, second] = std::visit(
      [](const auto& v) -> std::array<int, 2> {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, grid_stride>)
          return {v.block, v.waves};
        else if constexpr (std::is_same_v<S, chunked>)
          return {v.block, v.per_item};
        else if constexpr (std::is_same_v<S, vectors_across_workgroups>)
          return {v.block, v.width};
        else
          return {v.block, 0};
      },
      l.launch);
  std::vector<unsigned char> out{static_cast<unsigned char>(l.launch.index()), static_cast<unsigned char>(l.writes)};
  for (const int v : {first, second}) {
    const auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>((u >> (8 * i)) & 0xff));
  }
  return out;
}

// The launch a record's binary holds, or nothing where it holds none a loop can take.
inline std::optional<loop_launch> choice_from_bytes(const std::vector<unsigned char>& bytes) {
  if (bytes.size() != 10 || bytes[0] >= std::variant_size_v<strategy> ||
      bytes[1] > static_cast<unsigned char>(conflicts::blocks)) {
    return std::nullopt;
  }
  std::array<int, 2> v{};
  for (std::size_t n = 0; n < 2; ++n) {
    std::uint32_t u = 0;
    for (std::size_t i = 0; i < 4; ++i) u |= static_cast<std::uint32_t>(bytes[2 + 4 * n + i]) << (8 * i);
    v[n] = static_cast<int>(u);
  }
  strategy s;
  switch (bytes[0]) {
    case 0: s = split_n_across_workgroups{v[0]}; break;
    case 1: s = grid_stride{v[0], v[1]}; break;
    case 2: s = chunked{v[0], v[1]}; break;
    default: s = vectors_across_workgroups{v[0], v[1]}; break;
  }
  try {
    check_strategy(s);
  } catch (const argument_error&) {
    return std::nullopt;
  }
  return loop_launch{s, static_cast<conflicts>(bytes[1])};
}

}  // namespace parloop::detail

PARLOOP_COLD_END

namespace parloop::detail {

// A range's size class: lengths of bit width 2c and 2c + 1, from 2^(2c-1) to 2^(2c+1) - 1
// elements, share a choice -- 16 elements do not choose for a million, and a length that moves
// a little (another mesh of about the size) finds the choice made, in memory and on disk alike.
inline int size_class(index_t elements) {
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::max<index_t>(elements, 0)))) / 2;
}

}  // namespace parloop::detail

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The lengths of size class c, as the log says them.
inline std::string size_class_lengths(int c) {
  const std::uint64_t least = c == 0 ? 0 : std::uint64_t{1} << (2 * c - 1),
                      most = (std::uint64_t{1} << (2 * c + 1)) - 1;
  return parloop::detail::format("{} to {} elements", least, most);
}

// What the choice depends on besides the device: the kernel as the device runs it (its source for
// the first candidate, which carries the runtime's code options), the candidates and the range's
// size class.
inline cache::key_material choice_material(const device_backend& device, const ir::kernel& k,
                                           const std::vector<loop_launch>& candidates, int size_class) {
  ir::source_options o = device.codegen_options();
  o.writes = candidates.front().writes;
  std::string text = parloop::detail::format("parloop autotuning for ranges of size class {} ({}) among:", size_class,
                                             size_class_lengths(size_class));
  for (const loop_launch& c : candidates)
    text += parloop::detail::format(" {} {};", to_string(c.launch), to_string(c.writes));
  text += "\n" + codegen::make_source(k, device.dialect(), candidates.front().launch, o).code.text;
  // No launch goes with it: a grid of one group (a functor has at least one operation).
  return {.signature = device.signature(),
          .source = std::move(text),
          .grid = ir::grid_size_functor(ir::constant(1)),
          .block = 1,
          .layout = {}};
}

inline cache::kernel_record choice_record(const cache::key_material& m, const std::string& kernel,
                                          const loop_launch& l) {
  return {.backend = m.signature.backend,
          .format = cache::binary_format::launch_choice,
          .entry = kernel + ": autotuned launch",
          .binary = choice_bytes(l),
          .grid = m.grid,
          .block = m.block,
          .layout = m.layout};
}

}  // namespace parloop::detail

PARLOOP_COLD_END
