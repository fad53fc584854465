// SPDX-License-Identifier: MIT
// The in-memory cache of a kernel: per argument signature, its IR; per signature, backend and
// strategy, its launcher. A repeated par_loop finds both with comparisons and atomic loads: no
// lock, no tracing, no source, no hashing, no allocation. Tracing and compiling run outside the
// cache's lock, once per key; threads wanting another key do not wait for them.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/log.hpp"
#include "parloop/cache/stats.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device_backend.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

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
  compiled_kernel(std::uint64_t backend_id, const strategy& s, conflicts c) : backend(backend_id), launch(s), writes(c) {}
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
  // The kernel published before this one in its entry's list; set before publishing.
  compiled_kernel* next_published = nullptr;
};

// How a loop is launched: its strategy, and how its combining writes through maps are kept apart.
struct loop_launch {
  strategy launch;
  conflicts writes = conflicts::atomics;
  friend bool operator==(const loop_launch&, const loop_launch&) = default;
};

// What an autotuned launch is chosen for besides the signature and backend: ranges of one size
// class (exec/autotune.hpp's size_class), or a distributed loop over one link (0: none), for
// which rank 0 chooses and every rank takes its choice.
struct tuning_key {
  std::uint64_t link = 0;
  int size_class = 0;
  friend bool operator==(const tuning_key&, const tuning_key&) = default;
};

// The launch autotuning chose for one signature on one backend, for one tuning key.
struct tuned_launch {
  tuned_launch(std::uint64_t backend_id, tuning_key k, loop_launch l) : backend(backend_id), key(k), chosen(std::move(l)) {}
  const std::uint64_t backend;
  const tuning_key key;
  const loop_launch chosen;
  // The choice published before this one in its entry's list; set before publishing.
  const tuned_launch* next_published = nullptr;
};

struct signature_entry {
  signature_entry(std::type_index sig, std::span<const ir::param> p, std::shared_ptr<const ir::kernel> traced)
      : signature(sig), params(p.begin(), p.end()), ir(std::move(traced)) {}

  const std::type_index signature;
  const std::vector<ir::param> params;
  const std::shared_ptr<const ir::kernel> ir;
  // The kernel last launched from this entry on each of a few backends (by id), read without a
  // lock. A slot's kernel is never freed while the entry lives, so a stale one is only a miss.
  std::array<std::atomic<compiled_kernel*>, 4> last_hit{};
  // Guarded by the cache's mutex.
  std::vector<std::unique_ptr<compiled_kernel>> compiled;
  // Every kernel built from this entry, newest first, read without a lock where the slot holds
  // another backend's (more live backends than slots): only prepended to, and a published
  // kernel is never freed while the entry lives (a closed backend's stays, its id never reused).
  std::atomic<compiled_kernel*> published{nullptr};
  // The launch autotuning chose on each of a few backends (by id), read without a lock; the
  // choices are kept in `tuned`, guarded by the cache's tuning mutex, never freed before the
  // entry, and listed in `tuned_published` as kernels are in `published`.
  std::array<std::atomic<const tuned_launch*>, 4> tuned_slot{};
  std::vector<std::unique_ptr<tuned_launch>> tuned;
  std::atomic<const tuned_launch*> tuned_published{nullptr};
  // The entry made before this one: readers walk the list from the newest without a lock.
  signature_entry* older = nullptr;
};

// While one lives on a thread, kernels compiled for its launches are not stored in the disk
// cache (they are still loaded from it): autotuning's candidates, of which only the winner is
// kept (kernel_cache::keep_on_disk), so that tuning does not leave every candidate's binary.
class trial_builds {
 public:
  trial_builds() : previous_(current()) { current() = true; }
  ~trial_builds() { current() = previous_; }
  trial_builds(const trial_builds&) = delete;
  trial_builds& operator=(const trial_builds&) = delete;
  static bool active() { return current(); }

 private:
  static bool& current() {
    thread_local bool on = false;
    return on;
  }
  bool previous_;
};

class kernel_cache {
 public:
  explicit kernel_cache(std::string kernel_name)
      : store_(std::make_shared<store>()), stats_(make_kernel_stats(std::move(kernel_name))) {}
  kernel_cache(const kernel_cache&) = delete;
  kernel_cache& operator=(const kernel_cache&) = delete;

  // The entry for this signature: the type of the argument pack plus the parameters (which
  // hold what the types do not fix: arities, shared dats and maps). `make` makes the IR on a
  // miss, outside the lock; a thread wanting the same signature meanwhile waits for it.
  template <class Make>
  signature_entry& get(std::type_index signature, std::span<const ir::param> params, Make&& make) {
    if (signature_entry* e = find(signature, params)) return *e;
    store& st = *store_;
    std::unique_lock lock(st.mutex);
    while (true) {
      if (signature_entry* e = find(signature, params)) return *e;
      if (!st.is_tracing(signature, params)) break;
      st.changed.wait(lock);
    }
    st.tracing.push_back({signature, std::vector<ir::param>(params.begin(), params.end())});
    lock.unlock();
    std::unique_ptr<signature_entry> made;
    try {
      made = std::make_unique<signature_entry>(signature, params, std::make_shared<const ir::kernel>(make()));
    } catch (...) {
      lock.lock();
      st.done_tracing(signature, params);
      throw;
    }
    stats_->traces.fetch_add(1);
    signature_entry* e = made.get();
    lock.lock();
    e->older = st.newest.load(std::memory_order_relaxed);
    st.entries.push_back(std::move(made));
    st.newest.store(e, std::memory_order_release);
    st.done_tracing(signature, params);
    lock.unlock();
    if (const ir_observer observer = ir_observer_slot().load()) observer(*e->ir);
    return *e;
  }

  // The entry's kernel on this backend for this strategy and way of keeping combining writes
  // apart (codegen::options::writes), built on first use: the strategy makes the source and the
  // backend builds it.
  launcher& launcher_for(signature_entry& e, device_backend& device, const strategy& s,
                         conflicts writes = conflicts::atomics) {
    std::atomic<compiled_kernel*>& slot = e.last_hit[device.id() % e.last_hit.size()];
    const auto ready = [&](const compiled_kernel* c) {
      return c != nullptr && c->is(device.id(), s, writes) && usable_here(*c);
    };
    if (compiled_kernel* c = slot.load(std::memory_order_acquire); ready(c)) {
      stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
      return *c->loaded;
    }
    // Another backend's kernel in the slot (their ids meet modulo its size), or another strategy:
    // the published list, also without a lock, whatever the number of live backends.
    for (compiled_kernel* c = e.published.load(std::memory_order_acquire); c != nullptr;
         c = c->next_published) {
      if (!ready(c)) continue;
      slot.store(c, std::memory_order_release);
      stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
      return *c->loaded;
    }
    return find_or_build(e, device, s, writes, slot);
  }

  // The launch autotuning chose for this entry on this backend for `key`, or null: found
  // without a lock (a slot, then the published list).
  const loop_launch* find_tuned(signature_entry& e, const device_backend& device, tuning_key key) const {
    std::atomic<const tuned_launch*>& slot = e.tuned_slot[device.id() % e.tuned_slot.size()];
    const auto chosen_for = [&](const tuned_launch* t) { return t != nullptr && t->backend == device.id() && t->key == key; };
    if (const tuned_launch* t = slot.load(std::memory_order_acquire); chosen_for(t)) return &t->chosen;
    for (const tuned_launch* t = e.tuned_published.load(std::memory_order_acquire); t != nullptr; t = t->next_published) {
      if (!chosen_for(t)) continue;
      slot.store(t, std::memory_order_release);
      return &t->chosen;
    }
    return nullptr;
  }

  // The launch autotuning chose for this entry on this backend for `key`: after the first call,
  // found without a lock. The first call runs `tune()`, which returns the choice; calls of other
  // threads wait for it (a kernel is tuned once per backend and key). `tune` must not ask this
  // cache for another choice (find_tuned it may).
  template <class Tune>
  const loop_launch& tuned(signature_entry& e, device_backend& device, tuning_key key, Tune&& tune) {
    if (const loop_launch* known = find_tuned(e, device, key)) return *known;
    std::atomic<const tuned_launch*>& slot = e.tuned_slot[device.id() % e.tuned_slot.size()];
    std::lock_guard lock(store_->tuning);
    for (const auto& t : e.tuned) {
      if (t->backend != device.id() || t->key != key) continue;
      slot.store(t.get(), std::memory_order_release);
      return t->chosen;
    }
    auto made = std::make_unique<tuned_launch>(device.id(), key, tune());
    made->next_published = e.tuned_published.load(std::memory_order_relaxed);
    const tuned_launch* t = made.get();
    e.tuned.push_back(std::move(made));
    e.tuned_published.store(t, std::memory_order_release);
    slot.store(t, std::memory_order_release);
    return t->chosen;
  }
  // A loop autotuned by timing its candidates (not by a choice found in the disk cache).
  void count_tuning() { stats_->tunings.fetch_add(1); }

  // Stores in the disk cache the kernel this entry launched on `device` as `l` (built under
  // trial_builds, so not stored then), where the device keeps a disk cache.
  void keep_on_disk(signature_entry& e, device_backend& device, const loop_launch& l) {
    const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
    if (disk == nullptr) return;
    const launcher* held = nullptr;
    {
      std::lock_guard lock(store_->mutex);
      for (const auto& c : e.compiled) {
        if (c->is(device.id(), l.launch, l.writes)) held = c->loaded.get();
      }
    }
    if (held == nullptr) return;
    const codegen::kernel_source source = source_of(e, device, l.launch, l.writes);
    const cache::key_material material = material_of(device, source);
    const std::string key = cache::key_of(material);
    if (disk->load(material, key)) return;
    // A device that finishes a kernel at its first launch (PoCL) has its binary once that ran.
    device.wait();
    disk->store(material, key, held->record());
  }

  // A par_loop call that ran (on any backend; an empty range too).
  void count_launch() { stats_->launches.fetch_add(1, std::memory_order_relaxed); }
  // Only with PARLOOP_STATS=1: a call timed to its end, and the bytes its arguments declare.
  void count_run(std::uint64_t nanoseconds, std::uint64_t bytes) {
    stats_->run_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
    stats_->bytes.fetch_add(bytes, std::memory_order_relaxed);
  }

  // Launchers kept now: one per signature, backend and strategy used, until its runtime closes.
  std::size_t launchers() const {
    std::lock_guard lock(store_->mutex);
    std::size_t n = 0;
    for (const auto& e : store_->entries) {
      n += static_cast<std::size_t>(std::count_if(e->compiled.begin(), e->compiled.end(),
                                                  [](const auto& c) { return c->loaded != nullptr; }));
    }
    return n;
  }

  const kernel_stats& stats() const { return *stats_; }
  std::uint64_t traces() const { return stats_->traces.load(); }
  std::uint64_t compiles() const { return stats_->compiles.load(); }
  // Launchers made from the disk cache's entries instead of compiling.
  std::uint64_t disk_hits() const { return stats_->disk_hits.load(); }
  std::uint64_t launches() const { return stats_->launches.load(); }
  // Launchers made from another rank's kernel instead of compiling (distributed loops).
  std::uint64_t received() const { return stats_->received.load(); }
  // Loops autotuned by timing their candidates.
  std::uint64_t tunings() const { return stats_->tunings.load(); }

 private:
  struct store final : launcher_owner {
    struct key {
      std::type_index signature;
      std::vector<ir::param> params;
    };

    bool is_tracing(std::type_index signature, std::span<const ir::param> params) const {
      return std::any_of(tracing.begin(), tracing.end(), [&](const key& k) { return k.signature == signature && std::ranges::equal(k.params, params); });
    }
    void done_tracing(std::type_index signature, std::span<const ir::param> params) {
      std::erase_if(tracing, [&](const key& k) { return k.signature == signature && std::ranges::equal(k.params, params); });
      changed.notify_all();
    }

    // A closed backend's kernels are released; their records stay (a slot may still point at
    // one) until the kernel goes.
    void drop(std::uint64_t backend_id) override {
      std::lock_guard lock(mutex);
      for (const auto& e : entries) {
        for (auto& c : e->compiled) {
          if (c->backend != backend_id) continue;
          c->loaded.reset();
          retired.push_back(std::move(c));
        }
        std::erase(e->compiled, nullptr);
      }
    }

    std::mutex mutex;
    std::condition_variable changed;
    // Held while a loop of this kernel is autotuned, which takes `mutex` to build its candidates:
    // never taken while `mutex` is held.
    std::mutex tuning;
    std::atomic<signature_entry*> newest{nullptr};
    std::vector<std::unique_ptr<signature_entry>> entries;
    std::vector<key> tracing;
    std::vector<std::unique_ptr<compiled_kernel>> retired;
  };

  // Whether c needs no agreement before this launch: outside a distributed loop, or agreed on
  // over its link already.
  static bool usable_here(const compiled_kernel& c) {
    const rank_link* link = agreeing_on::link();
    return link == nullptr || c.last_agreed.load(std::memory_order_acquire) == link->id;
  }
  static bool agreed_over(const compiled_kernel& c, const rank_link& link) {
    return std::find(c.agreed_over.begin(), c.agreed_over.end(), link.id) != c.agreed_over.end();
  }
  static void mark_agreed(compiled_kernel& c, const rank_link& link) {
    if (!agreed_over(c, link)) c.agreed_over.push_back(link.id);
    c.last_agreed.store(link.id, std::memory_order_release);
  }

  static codegen::kernel_source source_of(const signature_entry& e, device_backend& device, const strategy& s,
                                       conflicts writes) {
    codegen::options options = device.codegen_options();
    options.writes = writes;
    return codegen::make_source(*e.ir, device.dialect(), s, options);
  }

  signature_entry* find(std::type_index signature, std::span<const ir::param> params) const {
    for (signature_entry* e = store_->newest.load(std::memory_order_acquire); e != nullptr; e = e->older) {
      if (e->signature == signature && std::ranges::equal(e->params, params)) return e;
    }
    return nullptr;
  }

  launcher& find_or_build(signature_entry& e, device_backend& device, const strategy& s, conflicts writes,
                          std::atomic<compiled_kernel*>& slot) {
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
          if (!agreed_over(*c, *link)) {
            // Held, but not agreed on over this link yet: this rank takes part as one that has
            // it. (A distributed loop runs on one thread per rank, and a loaded kernel stays
            // while its backend is open: the lock need not be held meanwhile.)
            const launcher& held = *c->loaded;
            lock.unlock();
            const codegen::kernel_source source = source_of(e, device, s, writes);
            static_cast<void>(agree(*link, device, source, material_of(device, source), e.ir->name, &held));
            lock.lock();
          }
          mark_agreed(*c, *link);
        }
        stats_->memory_hits.fetch_add(1, std::memory_order_relaxed);
        stats_->locked_hits.fetch_add(1, std::memory_order_relaxed);
        slot.store(c, std::memory_order_release);
        return *c->loaded;
      }
      st.changed.wait(lock);
    }
    e.compiled.push_back(std::make_unique<compiled_kernel>(device.id(), s, writes));
    compiled_kernel* c = e.compiled.back().get();
    lock.unlock();
    std::unique_ptr<launcher> loaded;
    try {
      const codegen::kernel_source source = source_of(e, device, s, writes);
      loaded = build_or_load(device, source, e.ir->name);
      if (codegen::checks_indices(*e.ir, device.codegen_options())) device.index_errors().name(e.ir->name);
      device.adopt(store_);
    } catch (...) {
      lock.lock();
      std::erase_if(e.compiled, [c](const std::unique_ptr<compiled_kernel>& x) { return x.get() == c; });
      st.changed.notify_all();
      throw;
    }
    lock.lock();
    c->loaded = std::move(loaded);
    if (link != nullptr) mark_agreed(*c, *link);
    c->next_published = e.published.load(std::memory_order_relaxed);
    e.published.store(c, std::memory_order_release);
    slot.store(c, std::memory_order_release);
    st.changed.notify_all();
    return *c->loaded;
  }

  static cache::key_material material_of(const device_backend& device, const codegen::kernel_source& source) {
    return {.signature = device.signature(),
            .source = source.code.text,
            .grid = source.grid,
            .block = source.block,
            .layout = source.layout};
  }

  // The source's launcher: from the disk cache's entry where it has a good one, else compiled
  // (and stored there). Another process compiling the same key meanwhile is waited for, a
  // little: its entry is then loaded instead.
  std::unique_ptr<launcher> build_or_load(device_backend& device, const codegen::kernel_source& source,
                                         const std::string& name) {
    const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
    const cache::key_material material = material_of(device, source);
    if (rank_link* link = agreeing_on::link()) return agree(*link, device, source, material, name);
    if (disk == nullptr) return compile(device, source, name);
    const std::string key = cache::key_of(material);
    if (auto loaded = load_from(device, *disk, material, key, name)) return loaded;
    if (trial_builds::active()) return compile(device, source, name);
    cache::key_lock held = disk->lock(material.signature.backend, key, std::chrono::seconds(30));
    if (held.held()) {
      if (auto loaded = load_from(device, *disk, material, key, name)) return loaded;
    }
    std::unique_ptr<launcher> built = compile(device, source, name);
    if (!device.records_after_first_launch()) {
      disk->store(material, key, built->record());
      return built;
    }
    // The record is taken once the kernel has run (PoCL keeps the first binary read, so it is not
    // read before), and the key stays locked until then: processes waiting for it load that one.
    auto lock = std::make_shared<cache::key_lock>(std::move(held));
    built->after_first_launch([&device, disk, material, key, lock, &l = *built] {
      device.wait();
      try {
        disk->store(material, key, l.record());
      } catch (const error&) {
        // No entry: the next process compiles the kernel again, and this one's loop stands.
      }
      *lock = cache::key_lock();
    });
    return built;
  }

  // The launcher of a distributed loop's kernel, agreed on by every rank (agreeing_on): where
  // every rank has it in its disk cache, each loads its own; else the lowest rank that has it
  // sends its entry to the others, or, where none has it, rank 0 compiles and sends it -- one
  // compile per kernel for the whole job, whether or not the ranks share a cache folder. Every
  // rank makes the same collective calls here whatever it finds; a compile that fails is said to
  // the others, which fail too. A rank that cannot use what arrives (another device: its key
  // material differs) compiles for itself, after the last collective call. A rank that holds the
  // kernel in memory already (`held`) takes part as one that has it, and gets null back.
  std::unique_ptr<launcher> agree(rank_link& link, device_backend& device, const codegen::kernel_source& source,
                                  const cache::key_material& material, const std::string& name,
                                  const launcher* held = nullptr) {
    const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
    const std::string key = cache::key_of(material);
    std::unique_ptr<launcher> mine =
        held == nullptr && disk != nullptr ? load_from(device, *disk, material, key, name) : nullptr;
    const launcher* const have = held != nullptr ? held : mine.get();
    if (link.all(have != nullptr)) return mine;
    std::int32_t holder = have != nullptr ? link.rank() : link.ranks();
    link.all_reduce(&holder, 1, scalar_type::int32, access::min);
    if (holder == link.ranks()) holder = 0;
    if (link.rank() == holder) {
      if (have != nullptr) {
        send_entry(link, holder, material, [have] { return have->record(); });
        return mine;
      }
      try {
        mine = compile(device, source, name);
      } catch (...) {
        // The others hear of it (an empty entry) rather than wait for one.
        std::string none;
        link.broadcast(none, holder);
        throw;
      }
      if (!device.records_after_first_launch()) {
        const cache::kernel_record record = send_entry(link, holder, material, [&l = *mine] { return l.record(); });
        if (disk != nullptr) disk->store(material, key, record);
        return mine;
      }
      // Its record is taken once it has run (PoCL finishes a kernel at its first launch): the
      // others wait in the broadcast meanwhile, within the same loop's launch.
      mine->after_first_launch([&device, &link, holder, disk, material, key, &l = *mine] {
        const cache::kernel_record record = send_entry(link, holder, material, [&] {
          device.wait();
          return l.record();
        });
        if (disk != nullptr) disk->store(material, key, record);
      });
      return mine;
    }
    std::string bytes;
    link.broadcast(bytes, holder);
    if (have != nullptr) return mine;
    if (bytes.empty()) {
      throw error(fmt::format("kernel '{}': rank {} could not compile or send it (its error says why)", name, holder));
    }
    const cache::decoded_entry got =
        cache::decode_entry(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), &material);
    if (got.record) {
      try {
        std::unique_ptr<launcher> loaded = device.load(*got.record);
        stats_->received.fetch_add(1);
        if (cache::log_info()) cache::log("received kernel '{}' from rank {}", name, holder);
        if (disk != nullptr) disk->store(material, key, *got.record);
        return loaded;
      } catch (const error&) {
        // This device refuses the binary: compiled here instead.
      }
    } else if (cache::log_info()) {
      cache::log("kernel '{}' from rank {} is not for this device ({}): compiling it here", name, holder, got.problem);
    }
    return compile(device, source, name);
  }

  // On the holder of an agreement: sends the entry of the record `made()` gives, and returns the
  // record -- or, where that throws, sends an empty entry, so that no rank waits for one, and
  // throws on.
  template <class Made>
  static cache::kernel_record send_entry(rank_link& link, int holder, const cache::key_material& material, Made&& made) {
    cache::kernel_record record;
    std::string bytes;
    try {
      record = made();
      bytes = cache::encode_entry(material, record);
    } catch (...) {
      std::string none;
      link.broadcast(none, holder);
      throw;
    }
    link.broadcast(bytes, holder);
    return record;
  }

  std::unique_ptr<launcher> compile(device_backend& device, const codegen::kernel_source& source, const std::string& name) {
    const bool said = cache::log_info();
    // Said before, so that a long compile shows what it is doing.
    if (said) cache::log("compiling kernel '{}' for {}", name, device.describe());
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<launcher> built = device.build(source);
    const std::uint64_t took = nanoseconds_since(start);
    stats_->compiles.fetch_add(1);
    stats_->compile_ns.fetch_add(took);
    if (said) cache::log("compiled kernel '{}' in {:.1f} ms", name, static_cast<double>(took) * 1e-6);
    return built;
  }

  // A launcher from the entry of `key`, or null: a device that refuses the stored binary (a
  // driver update the signature did not see) is a miss like any other.
  std::unique_ptr<launcher> load_from(device_backend& device, const cache::disk_cache& disk,
                                      const cache::key_material& material, const std::string& key,
                                      const std::string& name) {
    const auto start = std::chrono::steady_clock::now();
    std::optional<cache::kernel_record> record = disk.load(material, key);
    if (!record) return nullptr;
    try {
      std::unique_ptr<launcher> loaded = device.load(*record);
      const std::uint64_t took = nanoseconds_since(start);
      stats_->disk_hits.fetch_add(1);
      stats_->load_ns.fetch_add(took);
      if (cache::log_info()) {
        cache::log("loaded kernel '{}' from the disk cache ({}) in {:.1f} ms", name,
                   disk.path_of(material.signature.backend, key).string(), static_cast<double>(took) * 1e-6);
      }
      return loaded;
    } catch (const error&) {
      return nullptr;
    }
  }

  std::shared_ptr<store> store_;
  const std::shared_ptr<kernel_stats> stats_;
};

}  // namespace parloop::detail
