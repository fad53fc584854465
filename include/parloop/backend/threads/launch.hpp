// SPDX-License-Identifier: MIT
// The threads backend: the kernel's lambda, as the host backend runs it, over the runtime's pool
// of threads. A loop that modifies nothing through a map that another element may reach runs in
// contiguous chunks, one per thread. A loop that combines through maps (INC, MIN, MAX) runs OP2's
// OpenMP scheme: blocks of consecutive elements, coloured so that no two blocks of one colour
// reach one target; the blocks of a colour shared among the threads, each block's elements in
// order, a barrier between colours; no atomics. A loop that reduces into globals gets one partial
// per block, combined in block order after the loop, in blocks that depend on the range alone
// (the runtime's block size; not autotuned, tuning.hpp): its result depends on neither
// the thread count nor a timing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <exception>
#include <span>
#include <vector>

#include "parloop/backend/threads/pool.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/exec/loop/colors.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/order/coloring.hpp"

namespace parloop::detail {

// Over an extruded set, r is columns of `cells_per_element` cells each: the work is the cells.
inline void run_chunks(thread_pool& pool, const host_callbacks& h, range r, index_t cells_per_element = 1) {
  const index_t n = r.end - r.start;
  const std::int64_t work =
      std::min<std::int64_t>(std::int64_t{n} * cells_per_element, std::numeric_limits<index_t>::max());
  const int threads = threads_for(pool.size(), static_cast<index_t>(work));
  if (threads == 1) {
    h.run(r, nullptr);
    return;
  }
  pool.run([&](int t) { h.run(part_of(r.start, n, t, threads), nullptr); }, threads);
}

// Whether the loop combines into a dat through a map, or writes one whose elements meet one at a
// time: its blocks are coloured then, each block's elements run in order on one thread.
inline bool combines_through_maps(const loop_call& call) {
  return std::any_of(call.views.begin(), call.views.end(), [](const arg_view& a) { return colours_through_map(a); });
}

// The threads a reducing loop's blocks over an extruded set are sized for, fixed so that its
// partials do not depend on the pool's size.
inline constexpr int reduction_spread = 16;

// Whether the threads backend runs the loop in blocks (it colours them, or keeps a partial per
// block), whose size is then what there is to choose; else one contiguous chunk per thread.
inline bool runs_in_blocks(const loop_call& call) {
  return combines_through_maps(call) || call.callbacks.host.partial_bytes > 0;
}

// Runs r on `pool` as the top of this file says, in blocks of `block` elements where it
// colours or reduces; `scratch` keeps the blocks' partials between loops. Rethrows on the
// calling thread what a kernel threw on any (the first), once every thread has stopped.
inline void run_on_threads(thread_pool& pool, const loop_call& call, range r, int block,
                           std::vector<std::byte>& scratch) {
  const host_callbacks& h = call.callbacks.host;
  h.prepare();
  const index_t n = r.end - r.start;
  if (n <= 0) return;
  const bool combining = combines_through_maps(call);
  // Over an extruded set, r is columns: blocks of `block` columns, but at least four per thread
  // where there are columns enough, so that a small base mesh of tall columns still spreads
  // over the threads. (Not blocks of `block` cells, a few columns each: those need more colours
  // of smaller blocks.) A loop that reduces takes the blocks four for each of reduction_spread
  // threads give, whatever the pool's size.
  const index_t cells_per_column = call.extrusion.layers > 0 ? std::max(1, call.extrusion.count) : 1;
  if (!runs_in_blocks(call)) {
    run_chunks(pool, h, r, cells_per_column);
    return;
  }
  const std::size_t stride = h.partial_bytes;
  if (call.extrusion.layers > 0) {
    const int spread = stride > 0 ? reduction_spread : pool.size();
    block = std::max<index_t>(1, std::min<index_t>(block, n / (4 * spread)));
  }
  const auto blocks = static_cast<index_t>((std::int64_t{n} + block - 1) / block);
  if (scratch.size() < static_cast<std::size_t>(blocks) * stride)
    scratch.resize(static_cast<std::size_t>(blocks) * stride);
  const auto run_block = [&](index_t b) {
    const range elements{static_cast<index_t>(r.start + std::int64_t{b} * block),
                         static_cast<index_t>(std::min<std::int64_t>(r.end, r.start + (std::int64_t{b} + 1) * block))};
    std::byte* partial = stride > 0 ? scratch.data() + static_cast<std::size_t>(b) * stride : nullptr;
    if (partial != nullptr) h.start_partials(partial);
    h.run(elements, partial);
  };
  // A block that throws is recorded and the thread goes on to the barriers, doing no more work:
  // the others wait there for it.
  const auto run_blocks = [&](std::span<const index_t> order, index_t first, index_t last) {
    for (index_t i = first; i < last && !pool.failed(); ++i) {
      try {
        run_block(order.empty() ? i : order[static_cast<std::size_t>(i)]);
      } catch (...) {
        pool.fail(std::current_exception());
      }
    }
  };
  // No more threads than blocks: a loop of a few blocks (Airfoil's boundary edges) does not wait
  // for a pool's every thread.
  const int threads = static_cast<int>(std::min<index_t>(pool.size(), blocks));
  if (combining) {
    const coloring& colors = block_coloring_for(call.kernel, r, block, call.views, call.subset);
    pool.run(
        [&](int t) {
          for (int c = 0; c < colors.colors(); ++c) {
            const index_t lo = colors.offsets[static_cast<std::size_t>(c)];
            const range mine = part_of(lo, colors.offsets[static_cast<std::size_t>(c) + 1] - lo, t, threads);
            run_blocks(colors.order, mine.start, mine.end);
            if (c + 1 < colors.colors()) pool.barrier();
          }
        },
        threads);
  } else {
    pool.run(
        [&](int t) {
          const range mine = part_of(0, blocks, t, threads);
          run_blocks({}, mine.start, mine.end);
        },
        threads);
  }
  for (index_t b = 0; b < blocks && stride > 0; ++b)
    h.combine_partials(scratch.data() + static_cast<std::size_t>(b) * stride);
}

}  // namespace parloop::detail
