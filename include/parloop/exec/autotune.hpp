// SPDX-License-Identifier: MIT
// Autotuning (core/autotune.hpp): at a loop's first call on a device, each candidate launch --
// the backend's tuning strategies, times atomics, colours and two-level plans where elements
// combine writes through maps -- runs the loop from the same values: once to compile and colour,
// then three times timed to the end on the device. The fastest is kept for the kernel's signature
// on that backend, and in the disk cache beside the kernels (a record of format launch_choice),
// so that a later run of the program neither times nor compiles the others. The loop itself
// then runs once, as the winner, from the values it was called with.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/kernel_cache.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/cache/log.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device_launch.hpp"
#include "parloop/exec/kernel_source.hpp"

namespace parloop::detail {

// The launches an autotuned loop times, each as it runs (exec::for_kernel): strategies that
// generate the same kernel for it are one candidate.
inline std::vector<loop_launch> launch_candidates(const ir::kernel& k, const device_backend& device) {
  std::vector<conflicts> ways{conflicts::atomics};
  if (codegen::combines_through_maps(k)) ways.insert(ways.end(), {conflicts::colors, conflicts::blocks});
  std::vector<loop_launch> out;
  for (const conflicts c : ways) {
    for (const strategy& s : device.tuning_strategies()) {
      const loop_launch l{exec::for_kernel(k, s, c), c};
      if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    }
  }
  return out;
}

// A launch_choice record's binary: the strategy's alternative, the conflicts, and the strategy's
// two numbers (the second 0 where it has one), little-endian.
inline std::vector<unsigned char> choice_bytes(const loop_launch& l) {
  const auto [first, second] = std::visit(
      [](const auto& v) -> std::array<int, 2> {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, grid_stride>) return {v.block, v.waves};
        else if constexpr (std::is_same_v<S, chunked>) return {v.block, v.per_item};
        else if constexpr (std::is_same_v<S, vectors_across_workgroups>) return {v.block, v.width};
        else return {v.block, 0};
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

// What the choice depends on besides the device: the kernel as the device runs it (its source for
// the first candidate, which carries the runtime's code options), the candidates and the range's
// length.
inline cache::key_material choice_material(const device_backend& device, const ir::kernel& k,
                                           const std::vector<loop_launch>& candidates, index_t elements) {
  codegen::options o = device.codegen_options();
  o.writes = candidates.front().writes;
  std::string text = fmt::format("parloop autotuning over {} elements among:", elements);
  for (const loop_launch& c : candidates) text += fmt::format(" {} {};", to_string(c.launch), to_string(c.writes));
  text += "\n" + exec::make_source(k, device.dialect(), candidates.front().launch, o).code.text;
  // No launch goes with it: a grid of one group (a functor has at least one operation).
  return {.signature = device.signature(),
          .source = std::move(text),
          .grid = exec::grid_size_functor(exec::constant(1)),
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

// Times each candidate launch of k's `entry` over r and returns the fastest. The arrays the
// loop modifies go back to the values it was called with before each run and after the last.
template <class K, class... Args>
loop_launch time_candidates(device_backend& device, const K& k, signature_entry& entry,
                            const std::vector<loop_launch>& candidates, range r, const Args&... args) {
  const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
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
    launch_on_device(device, k, entry, l, r, args...);
    device.synchronize();
    return nanoseconds_since(start);
  };
  const bool said = cache::log_info();
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
          cache::log("autotuning '{}': {} {} refused: {}", entry.ir->name, to_string(l.launch), to_string(l.writes),
                     e.message());
        }
        if (!first_refusal) first_refusal = std::current_exception();
        continue;
      }
      if (said) {
        cache::log("autotuning '{}': {} {}: {:.1f} us", entry.ir->name, to_string(l.launch), to_string(l.writes),
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

// The launch of k's `entry` over r on `device`: `fallback` for an empty range (nothing to time);
// else the one chosen for the signature on this backend, found in memory, in the disk cache, or
// by timing the candidates now.
template <class K, class... Args>
loop_launch autotuned(device_backend& device, const K& k, signature_entry& entry, const loop_launch& fallback, range r,
                      const Args&... args) {
  if (r.end <= r.start) return fallback;
  return k.cache().tuned(entry, device, [&] {
    const std::vector<loop_launch> candidates = launch_candidates(*entry.ir, device);
    const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
    std::optional<cache::key_material> material;
    std::string key;
    if (disk != nullptr) {
      material = choice_material(device, *entry.ir, candidates, r.end - r.start);
      key = cache::key_of(*material);
      const std::optional<cache::kernel_record> record = disk->load(*material, key);
      if (record && record->format == cache::binary_format::launch_choice) {
        const std::optional<loop_launch> stored = choice_from_bytes(record->binary);
        if (stored && std::find(candidates.begin(), candidates.end(), *stored) != candidates.end()) {
          if (cache::log_info()) {
            cache::log("autotuning '{}': {} {}, as the disk cache keeps it", entry.ir->name, to_string(stored->launch),
                       to_string(stored->writes));
          }
          return *stored;
        }
      }
    }
    const loop_launch best = time_candidates(device, k, entry, candidates, r, args...);
    k.cache().count_tuning();
    if (cache::log_info()) {
      cache::log("autotuned '{}' on {}: {} {}", entry.ir->name, device.describe(), to_string(best.launch),
                 to_string(best.writes));
    }
    if (disk != nullptr) disk->store(*material, key, choice_record(*material, entry.ir->name, best));
    return best;
  });
}

}  // namespace parloop::detail
