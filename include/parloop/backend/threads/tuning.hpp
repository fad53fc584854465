// SPDX-License-Identifier: MIT
// Autotuning on the threads backend (core/autotune.hpp): a loop that colours its blocks and
// reduces into no global times each of thread_block_candidates at its first call,
// from the values it was called with, and keeps the fastest for its kernel's signature, the
// runtime and the range's size class (kernel_cache::tuned, where devices keep their choices), and
// in the disk cache as devices keep theirs: a launch_choice record under the threads backend, keyed
// on the CPU, the compiler, the thread count and the kernel's trace, so that a later run of the
// program times nothing. The block size is all there is to choose: a direct loop runs one
// contiguous chunk per thread. The loop then runs once, in blocks of the winner's size, from the
// same values.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/threads/launch.hpp"
#include "parloop/backend/threads/pool.hpp"
#include "parloop/cache/device_signature.hpp"
#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device/launch_choice.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/exec/kernel/log.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/grid.hpp"
#include "parloop/ir/kernel.hpp"
#include "parloop/ir/print.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// OP2's OpenMP block sizes run from 64 to 512; past 1024 a mesh like Airfoil's has too few blocks
// of a colour to share among 16 threads.
inline constexpr std::array<int, 5> thread_block_candidates{64, 128, 256, 512, 1024};

// The host values of the arrays a loop modifies, kept to put back before each timed run and
// after the last. Made current first: on a renumbered set a view's writes may be only in the
// user's copy, which the loop would otherwise take in after the values were kept.
class kept_values {
 public:
  explicit kept_values(std::span<const arg_view> views) {
    for (const arg_view& v : views) {
      if (!is_modified(v.mode)) continue;
      v.data->host_written(nullptr);
      const std::byte* from = v.data->host_bytes();
      kept_.emplace_back(v.data, std::vector<std::byte>(from, from + v.data->bytes()));
    }
  }
  void put_back() const {
    for (const auto& [array, bytes] : kept_) std::memcpy(array->host_bytes(), bytes.data(), bytes.size());
  }

 private:
  std::vector<std::pair<mirrored_array*, std::vector<std::byte>>> kept_;
};

// The fastest block size of the candidates for the call over r: each runs four times from the
// values the call starts from (the first colours its blocks), the best of the last three counts.
inline int time_thread_blocks(thread_pool& pool, std::vector<std::byte>& partials, const runtime_state& state,
                              const loop_call& call, range r) {
  const kept_values start(call.views);
  int best = state.thread_block;
  std::uint64_t best_ns = std::numeric_limits<std::uint64_t>::max();
  const bool said = log_info();
  try {
    for (const int block : thread_block_candidates) {
      std::uint64_t ns = std::numeric_limits<std::uint64_t>::max();
      for (int run = 0; run < 4; ++run) {
        start.put_back();
        const auto began = std::chrono::steady_clock::now();
        run_on_threads(pool, call, r, block, partials);
        if (run > 0) ns = std::min(ns, nanoseconds_since(began));
      }
      if (said) {
        log_line("autotuning '{}' on {}: blocks of {}: {:.1f} us", call.kernel, state.device_name, block,
                 static_cast<double>(ns) * 1e-3);
      }
      if (ns < best_ns) {
        best_ns = ns;
        best = block;
      }
    }
  } catch (...) {
    // What the kernel throws is the loop's error, with its arrays as it was called with them.
    start.put_back();
    throw;
  }
  start.put_back();
  return best;
}

// The processor's name (Linux's /proc/cpuinfo), or "a CPU" where it says none.
inline std::string cpu_model_name() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "a CPU";
}

// What a block size chosen on `threads` threads depends on besides the kernel: the CPU, the
// compiler that compiled the lambda (the program's, which includes this header) and the count.
inline cache::device_signature threads_signature(int threads) {
#if defined(__VERSION__)
  const std::string compiler = __VERSION__;
#else
  const std::string compiler = "unknown";
#endif
  return {.backend = backend_kind::threads,
          .platform = "parloop threads",
          .device = cpu_model_name(),
          .driver = "",
          .compiler = compiler,
          .architecture = parloop::detail::format("{} threads", threads),
          .options = ""};
}

// The disk cache entry's key material for the choice of `k` for ranges of size class c: the
// candidates and the kernel's trace, as devices key theirs on its source.
inline cache::key_material threads_choice_material(int threads, const ir::kernel& k, int size_class) {
  std::string text =
      parloop::detail::format("parloop threads autotuning for ranges of size class {} ({}) among blocks of", size_class,
                              size_class_lengths(size_class));
  for (const int block : thread_block_candidates) text += parloop::detail::format(" {}", block);
  text += "\n" + ir::to_string(k);
  return {.signature = threads_signature(threads),
          .source = std::move(text),
          .grid = ir::grid_size_functor(ir::constant(1)),
          .block = 1,
          .layout = {}};
}

// A block size chosen as a launch (kernel_cache::tuned keeps launches): the strategy's block.
inline loop_launch block_launch(int block) { return {split_n_across_workgroups{block}, conflicts::colors}; }

// The block size the disk cache keeps for the material, where it keeps one of the candidates.
inline std::optional<int> stored_block(const cache::disk_cache& disk, const cache::key_material& material,
                                       const std::string& key) {
  const std::optional<cache::kernel_record> record = disk.load(material, key);
  if (!record || record->format != cache::binary_format::launch_choice) return std::nullopt;
  const std::optional<loop_launch> stored = choice_from_bytes(record->binary);
  if (!stored) return std::nullopt;
  const int block = block_size(stored->launch);
  if (std::find(thread_block_candidates.begin(), thread_block_candidates.end(), block) ==
      thread_block_candidates.end()) {
    return std::nullopt;
  }
  return block;
}

// The block size for the call over r on `pool`: the disk cache's (the runtime's settings say
// which), else timed now and stored there.
inline int choose_thread_block(thread_pool& pool, std::vector<std::byte>& partials, const runtime_state& state,
                               const loop_call& call, const signature_entry& entry, range r) {
  const int size = size_class(r.end - r.start);
  const std::shared_ptr<cache::disk_cache> disk =
      entry.ir != nullptr ? cache::disk_cache::open(state.settings) : nullptr;
  std::optional<cache::key_material> material;
  std::string key;
  if (disk != nullptr) {
    material = threads_choice_material(pool.size(), *entry.ir, size);
    key = cache::key_of(*material);
    if (const std::optional<int> stored = stored_block(*disk, *material, key)) {
      if (log_info()) {
        log_line("autotuning '{}' on {} for {}: blocks of {}, as the disk cache keeps it", call.kernel,
                 state.device_name, size_class_lengths(size), *stored);
      }
      return *stored;
    }
  }
  const int block = time_thread_blocks(pool, partials, state, call, r);
  call.kernels.count_tuning();
  if (log_info()) {
    log_line("autotuned '{}' on {} for {}: blocks of {}", call.kernel, state.device_name, size_class_lengths(size),
             block);
  }
  if (disk != nullptr) disk->store(*material, key, choice_record(*material, call.kernel, block_launch(block)));
  return block;
}

}  // namespace parloop::detail

PARLOOP_COLD_END

namespace parloop::detail {

// The block size the threads backend (`pool`, whose tuning choices are kept under `id`) runs
// the call over r in: the runtime's, unless the loop is autotuned and colours its blocks; then
// the one chosen for its signature on this runtime and r's size class, found in memory, in the
// disk cache, or timed now. A loop that reduces into a global keeps the runtime's: its blocks
// are its partials, and a sum that depended on which block size timed fastest would differ from
// run to run and from rank to rank.
inline int thread_block_for(thread_pool& pool, std::vector<std::byte>& partials, std::uint64_t id,
                            const loop_call& call, signature_entry& entry, const loop_choice& how, range r) {
  const runtime_state& state = *call.set.runtime().state();
  if (!how.tune || r.end <= r.start || !combines_through_maps(call) || call.callbacks.host.partial_bytes > 0) {
    return state.thread_block;
  }
  const loop_launch& chosen = call.kernels.tuned(entry, id, tuning_key{0, size_class(r.end - r.start)}, [&] {
    return block_launch(choose_thread_block(pool, partials, state, call, entry, r));
  });
  return block_size(chosen.launch);
}

}  // namespace parloop::detail
