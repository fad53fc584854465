// SPDX-License-Identifier: MIT
// What the in-memory kernel cache keeps for one kernel: per argument signature, its IR; per
// backend, strategy and way of keeping combining writes apart, the launcher built for it; and
// the launches autotuning chose. Readers walk these without a lock (exec/kernel/kernel_cache.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "parloop/core/conflicts.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// A backend's compiled kernel (exec/device/device_backend.hpp): held here, built and destroyed only by
// the pipeline, which sees its definition.
class launcher;

// Called with every IR made for the first time (tests compile each one with the real device
// compilers this way). Set before kernels run; null for none.
using ir_observer = void (*)(const ir::kernel&);
inline std::atomic<ir_observer>& ir_observer_slot() {
  static std::atomic<ir_observer> observer{nullptr};
  return observer;
}
inline void set_ir_observer(ir_observer observer) { ir_observer_slot().store(observer); }

// One signature's kernel built on one backend for one strategy and way of keeping combining
// writes apart.
struct compiled_kernel {
  // Made, and destroyed, by the pipeline alone (kernel_cache_impl.hpp), which sees `launcher`.
  compiled_kernel(std::uint64_t backend_id, const strategy& s, conflicts c);
  // Whether it is the kernel compiled on that backend, launched so.
  bool is(std::uint64_t backend_id, const strategy& s, conflicts c) const {
    return backend == backend_id && writes == c && launch == s;
  }
  const std::uint64_t backend;
  const strategy launch;
  const conflicts writes;
  // Null while being built; reset when the backend closes. Guarded by the cache's mutex, except
  // that a launch on this backend reads it once published.
  std::unique_ptr<launcher> loaded;
  // The links (rank_link::id) it has been agreed on over. Every rank takes part in a kernel's
  // agreement over a link at its first use by a distributed loop there, whether or not it holds
  // the kernel from a loop that was not agreed on (on a plain set, autotuned): the others may
  // lack it. Guarded by the cache's mutex; the latest also read without a lock.
  std::vector<std::uint64_t> agreed_over;
  std::atomic<std::uint64_t> last_agreed{0};
  // The kernel published before this one in its entry's list: set before publishing, moved past
  // a closed backend's kernels when they leave the list.
  std::atomic<compiled_kernel*> next_published{nullptr};

  // Whether it needs no agreement before this launch: outside a distributed loop, or agreed on
  // over its link already.
  bool usable_here() const {
    const rank_link* link = agreeing_on::link();
    return link == nullptr || last_agreed.load(std::memory_order_acquire) == link->id;
  }
  bool agreed_on(const rank_link& link) const {
    return std::find(agreed_over.begin(), agreed_over.end(), link.id) != agreed_over.end();
  }
  void mark_agreed(const rank_link& link) {
    if (!agreed_on(link)) agreed_over.push_back(link.id);
    last_agreed.store(link.id, std::memory_order_release);
  }
};

// How a loop is launched: its strategy, and how its combining writes through maps are kept apart.
struct loop_launch {
  strategy launch;
  conflicts writes = conflicts::atomics;
  friend bool operator==(const loop_launch&, const loop_launch&) = default;
};

// What an autotuned launch is chosen for besides the signature and backend: ranges of one size
// class (exec/device/autotune.hpp's size_class), or a distributed loop over one link (0: none), for
// which rank 0 chooses and every rank takes its choice.
struct tuning_key {
  std::uint64_t link = 0;
  int size_class = 0;
  friend bool operator==(const tuning_key&, const tuning_key&) = default;
};

// The launch autotuning chose for one signature on one backend, for one tuning key.
struct tuned_launch {
  tuned_launch(std::uint64_t backend_id, tuning_key k, loop_launch l)
      : backend(backend_id), key(k), chosen(std::move(l)) {}
  const std::uint64_t backend;
  const tuning_key key;
  const loop_launch chosen;
  // The choice published before this one in its entry's list; set before publishing.
  const tuned_launch* next_published = nullptr;
};

struct signature_entry {
  // Made, and destroyed, by the kernel cache (kernel_cache_impl.hpp).
  signature_entry(std::span<const ir::param> p, const ir::extrusion& x, std::shared_ptr<const ir::kernel> traced);

  const std::vector<ir::param> params;
  // The layers a loop over an extruded set runs (none for a set): a part of the signature.
  const ir::extrusion over;
  const std::shared_ptr<const ir::kernel> ir;
  // The kernel last launched from this entry on each of a few backends (by id), read without a
  // lock; a stale one is only a miss. A closed backend's kernels leave the slots and the list
  // below, and are freed once no launch may still be reading them (kernel_cache_impl.hpp).
  std::array<std::atomic<compiled_kernel*>, 4> last_hit{};
  // Guarded by the cache's mutex.
  std::vector<std::unique_ptr<compiled_kernel>> compiled;
  // The kernels of open backends built from this entry, newest first, read without a lock where
  // the slot holds another backend's (more live backends than slots) or another strategy.
  std::atomic<compiled_kernel*> published{nullptr};
  // The launch autotuning chose on each of a few backends (by id), read without a lock; the
  // choices are kept in `tuned`, guarded by the cache's tuning mutex, never freed before the
  // entry, and listed in `tuned_published` as kernels are in `published`.
  std::array<std::atomic<const tuned_launch*>, 4> tuned_slot{};
  std::vector<std::unique_ptr<tuned_launch>> tuned;
  std::atomic<const tuned_launch*> tuned_published{nullptr};
  // The loops run with these arguments, counted by the trace check (exec/loop/run_range.hpp) on any
  // thread.
  std::atomic<std::uint64_t> calls{0};
  // The entry made before this one: readers walk the list from the newest without a lock.
  signature_entry* older = nullptr;
};

}  // namespace parloop::detail
