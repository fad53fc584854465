// SPDX-License-Identifier: MIT
// A par_loop on a device backend: find the launcher, evaluate the grid, make the arguments'
// device copies current, bind the buffers (reduction scratch included), enqueue, and record
// what the loop wrote. After the first call of a signature (and of a coloured loop's range) this
// does no tracing, no code generation, no hashing, no locking, no allocation -- and never waits
// for the device.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/loop/colors.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::detail {

// Binds the buffers of one launch over [start, end) (elements, or positions in a coloured
// loop's order) and enqueues it.
inline void enqueue_range(device_backend& device, launcher& l, std::int64_t groups, index_t start, index_t end,
                          std::span<const arg_view> views, const device_buffer* order) {
  // The layout holds data, maps, reduction scratch, the index checks' record and an order or
  // plan: at most 2n + 3 buffers. Left uninitialised: only the first n_buffers and n_strides are
  // read, and a launch should not clear 1.5 KB it never reads.
  std::array<const device_buffer*, 2 * max_loop_args + 3> buffers;
  std::array<int, max_loop_args> strides;
  std::size_t n_buffers = 0, n_partials = 0, n_strides = 0;
  for (const ir::kernel_buffer& b : l.layout()) {
    const device_buffer* bound = nullptr;
    switch (b.role) {
      case ir::buffer_role::stride:
        strides[n_strides++] = static_cast<int>(views[static_cast<std::size_t>(b.position)].data->component_stride());
        continue;
      case ir::buffer_role::data: bound = views[static_cast<std::size_t>(b.position)].data->buffer(); break;
      case ir::buffer_role::map: bound = views[static_cast<std::size_t>(b.position)].map->array.buffer(); break;
      case ir::buffer_role::partials: {
        const arg_view& v = views[static_cast<std::size_t>(b.position)];
        const std::size_t bytes =
            static_cast<std::size_t>(groups) * static_cast<std::size_t>(v.dim) * scalar_bytes(v.type);
        bound = &device.scratch().partials(device, n_partials++, bytes);
        break;
      }
      case ir::buffer_role::groups_done: bound = &device.scratch().groups_done(device); break;
      case ir::buffer_role::index_errors: bound = &device.index_errors().record(device); break;
      case ir::buffer_role::order:
      case ir::buffer_role::plan: bound = order; break;
    }
    buffers[n_buffers++] = bound;
  }
  l.enqueue(start, end, groups, std::span(buffers.data(), n_buffers), std::span(strides.data(), n_strides));
}

// The launches of a loop over r, `l` loaded: the range itself, or each colour's part of the
// order. An empty range moves nothing: every global keeps its value.
inline void enqueue_loop(device_backend& device, launcher& l, range r, std::span<const arg_view> views,
                         const std::vector<index_t>* colour_offsets, mirrored_array* order) {
  const std::int64_t groups = l.grid()(r.start, r.end, device.facts());
  if (groups == 0) return;
  for (const arg_view& v : views) {
    v.data->ensure_device(device);
    if (v.map != nullptr) v.map->array.ensure_device(device);
  }
  const device_buffer* order_buffer = order != nullptr ? &order->ensure_device(device) : nullptr;
  // Before the enqueue: once a kernel may have run, its device copies are the current ones.
  // Reductions too: they finish on the device, and the global is read back only when asked.
  for (const arg_view& v : views) {
    if (is_modified(v.mode)) v.data->device_written();
  }
  if (colour_offsets == nullptr) {
    enqueue_range(device, l, groups, r.start, r.end, views, order_buffer);
  } else {
    // A launch per colour, in order, on one queue: each starts when the one before has ended.
    for (std::size_t colour = 0; colour + 1 < colour_offsets->size(); ++colour) {
      const index_t start = (*colour_offsets)[colour], end = (*colour_offsets)[colour + 1];
      enqueue_range(device, l, l.grid()(start, end, device.facts()), start, end, views, order_buffer);
    }
  }
}

// Launches the signature `entry` of the kernel whose in-memory cache is `kernels` over r as `how`
// says, with the arguments `views`. Over a subset (`over`), r is positions in its elements: the
// kernel reaches them through its order, as a coloured loop's does, so the loop runs as coloured
// (one launch over the subset's elements where nothing combines through a map).
inline void launch_on_device(device_backend& device, kernel_cache& kernels, signature_entry& entry,
                             const loop_launch& how, range r, std::span<const arg_view> views,
                             subset_state* over = nullptr) {
  const strategy& s = how.launch;
  // How writes are kept apart matters only to a loop whose elements can meet at a target.
  // A loop over an extruded set keeps its columns apart by atomics or colours: a two-level plan
  // would stage whole columns of targets.
  const bool extruded = entry.ir->extrusion.layers > 0;
  // An RW or WRITE whose elements meet at a target runs them one at a time: only colours do
  // (atomics store a copy back whole; a two-level plan runs a block's elements at once).
  const bool ordered = std::any_of(views.begin(), views.end(), [](const arg_view& v) { return needs_order(v); });
  const conflicts writes = over != nullptr || ordered                    ? conflicts::colors
                           : !ir::combines_through_maps(*entry.ir)       ? conflicts::atomics
                           : extruded && how.writes == conflicts::blocks ? conflicts::colors
                                                                         : how.writes;
  // The launches: the range itself, or, coloured, each colour's positions in the order (of
  // elements, or of a plan's blocks). Made before the kernel, so that a loop no plan can hold is
  // refused before anything is compiled.
  const std::vector<index_t>* colour_offsets = nullptr;
  mirrored_array* order = over != nullptr ? &over->array : nullptr;
  if (std::any_of(views.begin(), views.end(), [](const arg_view& v) { return colours_through_map(v); })) {
    if (writes == conflicts::colors) {
      coloring& colors = coloring_for(entry.ir->name, r, views, over);
      colour_offsets = &colors.offsets;
      order = &colors.array;
    } else if (writes == conflicts::blocks) {
      block_plan& plan = plan_for(entry.ir->name, r, block_size(s), views);
      colour_offsets = &plan.offsets;
      order = &plan.array;
    }
  }
  launcher& l = kernels.launcher_for(entry, device, s, writes);
  try {
    enqueue_loop(device, l, r, views, colour_offsets, order);
  } catch (...) {
    l.first_launch_failed();
    throw;
  }
  // A first call over an empty range too finishes the launcher's first use: its disk cache
  // entry is not left waiting (with its key locked) for a launch that may never come.
  l.launched();
}

}  // namespace parloop::detail
