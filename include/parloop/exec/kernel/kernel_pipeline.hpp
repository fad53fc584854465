// SPDX-License-Identifier: MIT
// The pipeline that makes a kernel's launcher on a miss in memory: source -> key -> the disk
// cache -> the backend's load or build (then stored) -> over MPI, the ranks' agreement. The
// in-memory cache (exec/kernel/kernel_cache.hpp) calls it; cache/ only stores what it is handed.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "parloop/config.hpp"
#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/distributed/seam.hpp"
#include "parloop/exec/kernel/kernel_build.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// While one lives on a thread, kernels compiled for its launches are not stored in the disk
// cache (they are still loaded from it): autotuning's candidates, of which only the winner is
// kept (keep_on_disk), so that tuning does not leave every candidate's binary.
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

// The source's launcher: from the disk cache's entry where it has a good one, else compiled
// (and stored there). Another process compiling the same key meanwhile is waited for, a
// little: its entry is then loaded instead.
inline std::unique_ptr<launcher> build_or_load(device_backend& device, const codegen::kernel_source& source,
                                               const std::string& name, kernel_stats& stats) {
  const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
  const cache::key_material material = material_of(device, source);
  if (rank_link* link = agreeing_on::link()) {
    return distributed_loops().agree(*link, device, source, material, name, stats, nullptr);
  }
  if (disk == nullptr) return compile(device, source, name, stats);
  const std::string key = cache::key_of(material);
  if (auto loaded = load_from(device, *disk, material, key, name, stats)) return loaded;
  if (trial_builds::active()) return compile(device, source, name, stats);
  cache::key_lock held = disk->lock(material.signature.backend, key, std::chrono::seconds(30));
  if (held.held()) {
    if (auto loaded = load_from(device, *disk, material, key, name, stats)) return loaded;
  }
  std::unique_ptr<launcher> built = compile(device, source, name, stats);
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

// Stores in the disk cache `held`, the launcher of `k` built on `device` for strategy `s` and
// `writes` under trial_builds (so not stored then), where the device keeps a disk cache and
// the entry is not there yet.
inline void keep_on_disk(device_backend& device, const ir::kernel& k, const strategy& s, conflicts writes,
                         const launcher& held) {
  const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
  if (disk == nullptr) return;
  const cache::key_material material = material_of(device, source_for(k, device, s, writes));
  const std::string key = cache::key_of(material);
  if (disk->load(material, key)) return;
  // A device that finishes a kernel at its first launch (PoCL) has its binary once that ran.
  device.wait();
  disk->store(material, key, held.record());
}

}  // namespace parloop::detail

PARLOOP_COLD_END
