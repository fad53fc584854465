// SPDX-License-Identifier: MIT
// Autotuning (core/autotune.hpp): at a loop's first call on a device, each candidate launch --
// the backend's tuning strategies, times atomics, colours and two-level plans where elements
// combine writes through maps -- runs the loop from the same values: once to compile and colour,
// then three times timed to the end on the device. The fastest is kept for the kernel's signature
// on that backend and the range's size class, and in the disk cache beside the kernels (a record
// of format launch_choice, with the winner's binary and no other candidate's), so that a later
// run of the program neither times nor compiles the others. The loop itself then runs once, as
// the winner, from the values it was called with. A distributed loop takes rank 0's choice.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_launch.hpp"
#include "parloop/exec/device/launch_choice.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/kernel_pipeline.hpp"
#include "parloop/exec/kernel/log.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// Times each of `candidates`, launched from `entry` over r, and returns the fastest. The arrays
// the loop modifies go back to the values it was called with before each run and after the last.
inline loop_launch time_candidates(device_backend& device, kernel_cache& kernels, signature_entry& entry,
                                   const std::vector<loop_launch>& candidates, range r,
                                   std::span<const arg_view> views) {
  // The host copies hold the values the loop starts from; a run changes only the device's.
  for (const arg_view& v : views) {
    if (is_modified(v.mode)) v.data->host_written(&device);
  }
  // What earlier loops found wrong on the device is theirs, said here, not a candidate's refusal.
  device.synchronize();
  const auto reset = [&] {
    for (const arg_view& v : views) {
      if (!is_modified(v.mode)) continue;
      v.data->host_overwritten();
      v.data->ensure_device(device);
    }
    device.synchronize();
  };
  const auto timed_run = [&](const loop_launch& l) {
    reset();
    const auto start = std::chrono::steady_clock::now();
    launch_on_device(device, kernels, entry, l, r, views);
    device.synchronize();
    return nanoseconds_since(start);
  };
  const bool said = log_info();
  std::optional<loop_launch> best;
  std::uint64_t best_ns = std::numeric_limits<std::uint64_t>::max();
  std::exception_ptr first_refusal;
  // Whatever ends the tuning, the loop's arrays are left as it was called with them (best effort:
  // the device may be what failed).
  const auto restore_after = [&] {
    try {
      reset();
    } catch (...) {
    }
  };
  try {
    for (const loop_launch& l : candidates) {
      std::uint64_t ns = std::numeric_limits<std::uint64_t>::max();
      try {
        timed_run(l);  // compiles, colours, and a first launch that may finish the kernel
        for (int repeat = 0; repeat < 3; ++repeat) ns = std::min(ns, timed_run(l));
      } catch (const error& e) {
        // A candidate this device or loop cannot take (a plan's staged increments past its local
        // memory) is passed over; what every candidate finds wrong is the loop's error.
        if (said) {
          log_line("autotuning '{}': {} {} refused: {}", entry.ir->name, to_string(l.launch), to_string(l.writes),
                   e.message());
        }
        if (!first_refusal) first_refusal = std::current_exception();
        continue;
      }
      if (said) {
        log_line("autotuning '{}': {} {}: {:.1f} us", entry.ir->name, to_string(l.launch), to_string(l.writes),
                 static_cast<double>(ns) * 1e-3);
      }
      if (ns < best_ns) {
        best_ns = ns;
        best = l;
      }
    }
  } catch (...) {
    restore_after();
    throw;
  }
  if (!best) {
    restore_after();
    std::rethrow_exception(first_refusal);
  }
  reset();
  return *best;
}

// The launch of the kernel's `entry` (its in-memory cache `kernels`) for ranges of r's size class
// on `device`, chosen now: the one the
// disk cache keeps, else the fastest of the candidates timed over r (their binaries not stored:
// only the winner's is, with the choice).
inline loop_launch choose_launch(device_backend& device, kernel_cache& kernels, signature_entry& entry, range r,
                                 std::span<const arg_view> views) {
  const int size = size_class(r.end - r.start);
  const std::vector<loop_launch> candidates = launch_candidates(*entry.ir, device);
  const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
  std::optional<cache::key_material> material;
  std::string key;
  if (disk != nullptr) {
    material = choice_material(device, *entry.ir, candidates, size);
    key = cache::key_of(*material);
    const std::optional<cache::kernel_record> record = disk->load(*material, key);
    if (record && record->format == cache::binary_format::launch_choice) {
      const std::optional<loop_launch> stored = choice_from_bytes(record->binary);
      if (stored && std::find(candidates.begin(), candidates.end(), *stored) != candidates.end()) {
        if (log_info()) {
          log_line("autotuning '{}' for {}: {} {}, as the disk cache keeps it", entry.ir->name,
                   size_class_lengths(size), to_string(stored->launch), to_string(stored->writes));
        }
        return *stored;
      }
    }
  }
  const loop_launch best = [&] {
    const trial_builds trial;
    return time_candidates(device, kernels, entry, candidates, r, views);
  }();
  kernels.count_tuning();
  if (log_info()) {
    log_line("autotuned '{}' on {} for {}: {} {}", entry.ir->name, device.describe(), size_class_lengths(size),
             to_string(best.launch), to_string(best.writes));
  }
  if (disk != nullptr) {
    kernels.keep_on_disk(entry, device, best);
    disk->store(*material, key, choice_record(*material, entry.ir->name, best));
  }
  return best;
}

// The launch of the kernel's `entry` over r on `device`: `fallback` for an empty range (nothing to time);
// else the one chosen for the signature on this backend and r's size class, found in memory, in
// the disk cache, or by timing the candidates now.
inline loop_launch autotuned(device_backend& device, kernel_cache& kernels, signature_entry& entry,
                             const loop_launch& fallback, range r, std::span<const arg_view> views) {
  if (r.end <= r.start) return fallback;
  return kernels.tuned(entry, device.id(), tuning_key{0, size_class(r.end - r.start)},
                       [&] { return choose_launch(device, kernels, entry, r, views); });
}

}  // namespace parloop::detail

PARLOOP_COLD_END
