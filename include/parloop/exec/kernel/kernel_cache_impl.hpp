// SPDX-License-Identifier: MIT
// The kernel cache's members that only the pipeline calls (exec/kernel/kernel_cache.hpp declares them):
// compiled once into the library under PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/codegen/kernel_source.hpp"
#include "parloop/config.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/distributed/seam.hpp"
#include "parloop/exec/kernel/kernel_build.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/exec/kernel/kernel_pipeline.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

struct kernel_cache::store final : launcher_owner {
  bool is_tracing(std::span<const ir::param> params, const ir::extrusion& over) const {
    return std::any_of(tracing.begin(), tracing.end(),
                       [&](const auto& k) { return k.second == over && std::ranges::equal(k.first, params); });
  }
  void done_tracing(std::span<const ir::param> params, const ir::extrusion& over) {
    std::erase_if(tracing, [&](const auto& k) { return k.second == over && std::ranges::equal(k.first, params); });
    changed.notify_all();
  }

  // A closed backend's kernels are released, and their records leave the slots and the
  // published lists: freed at once where no launch is reading those, else at a later change.
  void drop(std::uint64_t backend_id) override {
    std::lock_guard lock(mutex);
    for (const auto& e : entries) {
      bool closed = false;
      for (auto& c : e->compiled) {
        if (c->backend != backend_id) continue;
        c->loaded.reset();
        retired.push_back(std::move(c));
        closed = true;
      }
      if (!closed) continue;
      std::erase(e->compiled, nullptr);
      const auto open = [&](const compiled_kernel* c) {
        return std::any_of(e->compiled.begin(), e->compiled.end(), [c](const auto& k) { return k.get() == c; });
      };
      for (std::atomic<compiled_kernel*>& slot : e->last_hit) {
        if (compiled_kernel* c = slot.load(); c != nullptr && !open(c)) slot.store(nullptr);
      }
      // The open ones relinked in the order they had: a launch walking the list meanwhile only
      // ever steps towards older kernels, and ends.
      std::atomic<compiled_kernel*>* link = &e->published;
      for (compiled_kernel* c = e->published.load(); c != nullptr; c = c->next_published.load()) {
        if (!open(c)) continue;
        if (link->load() != c) link->store(c);
        link = &c->next_published;
      }
      if (link->load() != nullptr) link->store(nullptr);
    }
    free_unread();
  }

  // Frees the closed backends' records where no launch is walking the slots and lists. Every
  // access to the count and to what it guards is sequentially consistent: a launch that counts
  // itself after this saw none finds the slots and lists without them.
  void free_unread() {
    if (readers.load() == 0) retired.clear();
  }

  std::mutex mutex;
  std::condition_variable changed;
  // Held while a loop of this kernel is autotuned, which takes `mutex` to build its candidates:
  // never taken while `mutex` is held.
  std::mutex tuning;
  std::vector<std::unique_ptr<signature_entry>> entries;
  // The signatures being traced, by their parameters.
  std::vector<std::pair<std::vector<ir::param>, ir::extrusion>> tracing;
  // Closed backends' records not freed yet, and the launches reading slots and lists now.
  std::vector<std::unique_ptr<compiled_kernel>> retired;
  std::atomic<int> readers{0};
};

// Counts a launch among those reading the slots and published lists without the lock.
class reading_published {
 public:
  explicit reading_published(std::atomic<int>& readers) : readers_(readers) { readers_.fetch_add(1); }
  ~reading_published() { readers_.fetch_sub(1); }
  reading_published(const reading_published&) = delete;
  reading_published& operator=(const reading_published&) = delete;

 private:
  std::atomic<int>& readers_;
};

PARLOOP_FUNC compiled_kernel::compiled_kernel(std::uint64_t backend_id, const strategy& s, conflicts c)
    : backend(backend_id), launch(s), writes(c) {}

PARLOOP_FUNC signature_entry::signature_entry(std::span<const ir::param> p, const ir::extrusion& x,
                                              std::shared_ptr<const ir::kernel> traced)
    : params(p.begin(), p.end()), over(x), ir(std::move(traced)) {}

PARLOOP_FUNC kernel_cache::kernel_cache(std::string kernel_name)
    : store_(std::make_shared<store>()), stats_(make_kernel_stats(std::move(kernel_name))) {}

PARLOOP_FUNC signature_entry& kernel_cache::add(std::span<const ir::param> params, const ir::extrusion& over,
                                                function_ref<ir::kernel()> make) {
  store& st = *store_;
  std::unique_lock lock(st.mutex);
  while (true) {
    if (signature_entry* e = find(params, over)) return *e;
    if (!st.is_tracing(params, over)) break;
    st.changed.wait(lock);
  }
  st.tracing.emplace_back(std::vector<ir::param>(params.begin(), params.end()), over);
  lock.unlock();
  std::unique_ptr<signature_entry> made;
  try {
    made = std::make_unique<signature_entry>(params, over, std::make_shared<const ir::kernel>(make()));
  } catch (...) {
    lock.lock();
    st.done_tracing(params, over);
    throw;
  }
  stats_->traces.fetch_add(1);
  signature_entry* e = made.get();
  lock.lock();
  e->older = newest_.load(std::memory_order_relaxed);
  st.entries.push_back(std::move(made));
  newest_.store(e, std::memory_order_release);
  st.done_tracing(params, over);
  lock.unlock();
  if (const ir_observer observer = ir_observer_slot().load()) observer(*e->ir);
  return *e;
}

// A loop's every call looks its kernel up here: compiled as the program is, not for size.
PARLOOP_COLD_END
PARLOOP_FUNC launcher& kernel_cache::launcher_for(signature_entry& e, device_backend& device, const strategy& s,
                                                  conflicts writes) {
  std::atomic<compiled_kernel*>& slot = e.last_hit[device.id() % e.last_hit.size()];
  const auto ready = [&](const compiled_kernel* c) {
    return c != nullptr && c->is(device.id(), s, writes) && c->usable_here();
  };
  {
    const reading_published reading(store_->readers);
    if (compiled_kernel* c = slot.load(); ready(c)) {
      stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
      return *c->loaded;
    }
    // Another backend's kernel in the slot (their ids meet modulo its size), or another
    // strategy: the published list, also without a lock, whatever the number of live backends.
    for (compiled_kernel* c = e.published.load(); c != nullptr; c = c->next_published.load()) {
      if (!ready(c)) continue;
      slot.store(c);
      stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
      return *c->loaded;
    }
  }
  return find_or_build(e, device, s, writes, slot);
}

PARLOOP_FUNC const loop_launch* kernel_cache::find_tuned(signature_entry& e, std::uint64_t backend_id,
                                                         tuning_key key) const {
  std::atomic<const tuned_launch*>& slot = e.tuned_slot[backend_id % e.tuned_slot.size()];
  const auto chosen_for = [&](const tuned_launch* t) {
    return t != nullptr && t->backend == backend_id && t->key == key;
  };
  if (const tuned_launch* t = slot.load(std::memory_order_acquire); chosen_for(t)) return &t->chosen;
  for (const tuned_launch* t = e.tuned_published.load(std::memory_order_acquire); t != nullptr; t = t->next_published) {
    if (!chosen_for(t)) continue;
    slot.store(t, std::memory_order_release);
    return &t->chosen;
  }
  return nullptr;
}

PARLOOP_COLD_BEGIN
PARLOOP_FUNC const loop_launch& kernel_cache::tuned(signature_entry& e, std::uint64_t backend_id, tuning_key key,
                                                    function_ref<loop_launch()> tune) {
  if (const loop_launch* known = find_tuned(e, backend_id, key)) return *known;
  std::atomic<const tuned_launch*>& slot = e.tuned_slot[backend_id % e.tuned_slot.size()];
  std::lock_guard lock(store_->tuning);
  for (const auto& t : e.tuned) {
    if (t->backend != backend_id || t->key != key) continue;
    slot.store(t.get(), std::memory_order_release);
    return t->chosen;
  }
  auto made = std::make_unique<tuned_launch>(backend_id, key, tune());
  made->next_published = e.tuned_published.load(std::memory_order_relaxed);
  const tuned_launch* t = made.get();
  e.tuned.push_back(std::move(made));
  e.tuned_published.store(t, std::memory_order_release);
  slot.store(t, std::memory_order_release);
  return t->chosen;
}

PARLOOP_FUNC void kernel_cache::keep_on_disk(signature_entry& e, device_backend& device, const loop_launch& l) {
  const launcher* held = nullptr;
  {
    std::lock_guard lock(store_->mutex);
    for (const auto& c : e.compiled) {
      if (c->is(device.id(), l.launch, l.writes)) held = c->loaded.get();
    }
  }
  if (held != nullptr) detail::keep_on_disk(device, *e.ir, l.launch, l.writes, *held);
}

PARLOOP_FUNC std::size_t kernel_cache::launchers() const {
  std::lock_guard lock(store_->mutex);
  std::size_t n = 0;
  for (const auto& e : store_->entries) {
    n += static_cast<std::size_t>(
        std::count_if(e->compiled.begin(), e->compiled.end(), [](const auto& c) { return c->loaded != nullptr; }));
  }
  return n;
}

PARLOOP_FUNC std::size_t kernel_cache::records() const {
  std::lock_guard lock(store_->mutex);
  std::size_t n = store_->retired.size();
  for (const auto& e : store_->entries) n += e->compiled.size();
  return n;
}

PARLOOP_FUNC launcher& kernel_cache::find_or_build(signature_entry& e, device_backend& device, const strategy& s,
                                                   conflicts writes, std::atomic<compiled_kernel*>& slot) {
  store& st = *store_;
  const auto matches = [&](const std::unique_ptr<compiled_kernel>& c) { return c->is(device.id(), s, writes); };
  rank_link* const link = agreeing_on::link();
  std::unique_lock lock(st.mutex);
  while (true) {
    const auto it = std::find_if(e.compiled.begin(), e.compiled.end(), matches);
    if (it == e.compiled.end()) break;
    compiled_kernel* c = it->get();
    if (c->loaded != nullptr) {
      if (link != nullptr) {
        if (!c->agreed_on(*link)) {
          // Held, but not agreed on over this link yet: this rank takes part as one that has
          // it. (A distributed loop runs on one thread per rank, and a loaded kernel stays
          // while its backend is open: the lock need not be held meanwhile.)
          const launcher& held = *c->loaded;
          lock.unlock();
          const codegen::kernel_source source = source_for(*e.ir, device, s, writes);
          static_cast<void>(distributed_loops().agree(*link, device, source, material_of(device, source), e.ir->name,
                                                      *stats_, &held));
          lock.lock();
        }
        c->mark_agreed(*link);
      }
      stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
      stats_->locked_hits.fetch_add(1, std::memory_order_relaxed);
      slot.store(c);
      return *c->loaded;
    }
    st.changed.wait(lock);
  }
  e.compiled.push_back(std::make_unique<compiled_kernel>(device.id(), s, writes));
  compiled_kernel* c = e.compiled.back().get();
  lock.unlock();
  std::unique_ptr<launcher> loaded;
  try {
    loaded = build_or_load(device, source_for(*e.ir, device, s, writes), e.ir->name, *stats_);
    if (ir::checks_indices(*e.ir, device.codegen_options())) device.index_errors().name(e.ir->name);
    device.adopt(store_);
  } catch (...) {
    lock.lock();
    std::erase_if(e.compiled, [c](const std::unique_ptr<compiled_kernel>& x) { return x.get() == c; });
    st.changed.notify_all();
    throw;
  }
  lock.lock();
  c->loaded = std::move(loaded);
  if (link != nullptr) c->mark_agreed(*link);
  c->next_published.store(e.published.load());
  e.published.store(c);
  slot.store(c);
  st.free_unread();
  st.changed.notify_all();
  return *c->loaded;
}

}  // namespace parloop::detail

PARLOOP_COLD_END
