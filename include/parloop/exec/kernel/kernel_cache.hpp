// SPDX-License-Identifier: MIT
// The in-memory cache of a kernel: per argument signature, its IR; per signature, backend and
// strategy, its launcher. A repeated par_loop finds both with comparisons and atomic loads: no
// lock, no tracing, no source, no hashing, no allocation. Tracing and compiling run outside the
// cache's lock, once per key; threads wanting another key do not wait for them. A miss goes down
// the pipeline (exec/kernel/kernel_pipeline.hpp).
//
// What a loop's templates call is here; what only the pipeline calls is declared here and
// defined in kernel_cache_impl.hpp, with what it needs (backends, codegen, the disk cache).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "parloop/config.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/fwd.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

class kernel_cache {
 public:
  explicit kernel_cache(std::string kernel_name);
  kernel_cache(const kernel_cache&) = delete;
  kernel_cache& operator=(const kernel_cache&) = delete;

  // The entry for this signature: the arguments' parameters, which say all a kernel's code
  // depends on (each argument's type, dimension, access, kind, slot and arity, and which
  // arguments share a dat or a map), and over an extruded set the layers its loop runs. `make`
  // makes the IR on a miss, outside the lock; a thread wanting the same signature meanwhile
  // waits for it.
  signature_entry& get(std::span<const ir::param> params, const ir::extrusion& over, function_ref<ir::kernel()> make) {
    if (signature_entry* e = find(params, over)) return *e;
    return add(params, over, make);
  }

  // The entry's kernel on this backend for this strategy and way of keeping combining writes
  // apart (ir::source_options::writes), built on first use: the strategy makes the source and the
  // backend builds it.
  launcher& launcher_for(signature_entry& e, device_backend& device, const strategy& s,
                         conflicts writes = conflicts::atomics);

  // The launch autotuning chose for this entry on the backend `backend_id` (device_backend::id,
  // runtime_state::threads_id) for `key`, or null: found without a lock (a slot, then the
  // published list).
  const loop_launch* find_tuned(signature_entry& e, std::uint64_t backend_id, tuning_key key) const;

  // The launch autotuning chose for this entry on this backend for `key`: after the first call,
  // found without a lock. The first call runs `tune()`, which returns the choice; calls of other
  // threads wait for it (a kernel is tuned once per backend and key). `tune` must not ask this
  // cache for another choice (find_tuned it may).
  const loop_launch& tuned(signature_entry& e, std::uint64_t backend_id, tuning_key key,
                           function_ref<loop_launch()> tune);
  // A loop autotuned by timing its candidates (not by a choice found in the disk cache).
  void count_tuning() { stats_->tunings.fetch_add(1); }

  // Stores in the disk cache the kernel this entry launched on `device` as `l` (built under
  // trial_builds, so not stored then), where the device keeps a disk cache.
  void keep_on_disk(signature_entry& e, device_backend& device, const loop_launch& l);

  // A par_loop call that ran (on any backend; an empty range too).
  void count_launch() { stats_->launches.fetch_add(1, std::memory_order_relaxed); }
  // Only with PARLOOP_STATS=1: a call timed to its end, and the bytes its arguments declare.
  void count_run(std::uint64_t nanoseconds, std::uint64_t bytes) {
    stats_->run_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
    stats_->bytes.fetch_add(bytes, std::memory_order_relaxed);
  }

  // Launchers kept now: one per signature, backend and strategy used, until its runtime closes.
  std::size_t launchers() const;
  // Kernels' records kept: those of open runtimes, and a closed one's while a launch on another
  // may still be reading them.
  std::size_t records() const;

  const kernel_stats& stats() const { return *stats_; }
  std::uint64_t traces() const { return stats_->traces.load(); }
  std::uint64_t compiles() const { return stats_->compiles.load(); }
  // Launchers made from the disk cache's entries instead of compiling.
  std::uint64_t disk_hits() const { return stats_->disk_hits.load(); }
  std::uint64_t launches() const { return stats_->launches.load(); }
  // Launchers made from another rank's kernel instead of compiling (distributed loops).
  std::uint64_t received() const { return stats_->received.load(); }
  // Loops autotuned by timing its candidates.
  std::uint64_t tunings() const { return stats_->tunings.load(); }

 private:
  // The entries, the kernels built from them and the locks: kept by a shared pointer, since a
  // backend that closes drops its kernels through it (launcher_owner).
  struct store;

  signature_entry* find(std::span<const ir::param> params, const ir::extrusion& over) const {
    for (signature_entry* e = newest_.load(std::memory_order_acquire); e != nullptr; e = e->older) {
      if (e->over == over && std::ranges::equal(e->params, params)) return e;
    }
    return nullptr;
  }
  // Traces a signature not found (or waits for the thread tracing it).
  signature_entry& add(std::span<const ir::param> params, const ir::extrusion& over, function_ref<ir::kernel()> make);
  launcher& find_or_build(signature_entry& e, device_backend& device, const strategy& s, conflicts writes,
                          std::atomic<compiled_kernel*>& slot);

  std::shared_ptr<store> store_;
  // The newest entry: readers walk the list from it without a lock.
  std::atomic<signature_entry*> newest_{nullptr};
  const std::shared_ptr<kernel_stats> stats_;
};

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/exec/kernel/kernel_cache_impl.hpp"
#endif
