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
#include "parloop/core/distribution.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device_launch.hpp"
#include "parloop/codegen/kernel_source.hpp"

namespace parloop::detail {

// The launches an autotuned loop times, each as it runs (codegen::for_kernel): strategies that
// generate the same kernel for it are one candidate.
inline std::vector<loop_launch> launch_candidates(const ir::kernel& k, const device_backend& device) {
  std::vector<conflicts> ways{conflicts::atomics};
  if (codegen::combines_through_maps(k)) ways.insert(ways.end(), {conflicts::colors, conflicts::blocks});
  std::vector<loop_launch> out;
  for (const conflicts c : ways) {
    for (const strategy& s : device.tuning_strategies()) {
      const loop_launch l{codegen::for_kernel(k, s, c), c};
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

// A range's size class: lengths of bit width 2c and 2c + 1, from 2^(2c-1) to 2^(2c+1) - 1
// elements, share a choice -- 16 elements do not choose for a million, and a length that moves
// a little (another mesh of about the size) finds the choice made, in memory and on disk alike.
inline int size_class(index_t elements) {
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::max<index_t>(elements, 0)))) / 2;
}

// The lengths of size class c, as the log says them.
inline std::string size_class_lengths(int c) {
  const std::uint64_t least = c == 0 ? 0 : std::uint64_t{1} << (2 * c - 1), most = (std::uint64_t{1} << (2 * c + 1)) - 1;
  return fmt::format("{} to {} elements", least, most);
}

// What the choice depends on besides the device: the kernel as the device runs it (its source for
// the first candidate, which carries the runtime's code options), the candidates and the range's
// size class.
inline cache::key_material choice_material(const device_backend& device, const ir::kernel& k,
                                           const std::vector<loop_launch>& candidates, int size_class) {
  codegen::options o = device.codegen_options();
  o.writes = candidates.front().writes;
  std::string text = fmt::format("parloop autotuning for ranges of size class {} ({}) among:", size_class,
                                 size_class_lengths(size_class));
  for (const loop_launch& c : candidates) text += fmt::format(" {} {};", to_string(c.launch), to_string(c.writes));
  text += "\n" + codegen::make_source(k, device.dialect(), candidates.front().launch, o).code.text;
  // No launch goes with it: a grid of one group (a functor has at least one operation).
  return {.signature = device.signature(),
          .source = std::move(text),
          .grid = codegen::grid_size_functor(codegen::constant(1)),
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

// The launch of k's `entry` for ranges of r's size class on `device`, chosen now: the one the
// disk cache keeps, else the fastest of the candidates timed over r (their binaries not stored:
// only the winner's is, with the choice).
template <class K, class... Args>
loop_launch choose_launch(device_backend& device, const K& k, signature_entry& entry, range r, const Args&... args) {
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
        if (cache::log_info()) {
          cache::log("autotuning '{}' for {}: {} {}, as the disk cache keeps it", entry.ir->name,
                     size_class_lengths(size), to_string(stored->launch), to_string(stored->writes));
        }
        return *stored;
      }
    }
  }
  const loop_launch best = [&] {
    const trial_builds trial;
    return time_candidates(device, k, entry, candidates, r, args...);
  }();
  k.cache().count_tuning();
  if (cache::log_info()) {
    cache::log("autotuned '{}' on {} for {}: {} {}", entry.ir->name, device.describe(), size_class_lengths(size),
               to_string(best.launch), to_string(best.writes));
  }
  if (disk != nullptr) {
    k.cache().keep_on_disk(entry, device, best);
    disk->store(*material, key, choice_record(*material, entry.ir->name, best));
  }
  return best;
}

// The launch of k's `entry` over r on `device`: `fallback` for an empty range (nothing to time);
// else the one chosen for the signature on this backend and r's size class, found in memory, in
// the disk cache, or by timing the candidates now.
template <class K, class... Args>
loop_launch autotuned(device_backend& device, const K& k, signature_entry& entry, const loop_launch& fallback, range r,
                      const Args&... args) {
  if (r.end <= r.start) return fallback;
  return k.cache().tuned(entry, device, tuning_key{0, size_class(r.end - r.start)},
                         [&] { return choose_launch(device, k, entry, r, args...); });
}

// The launch of a distributed loop over `link`, whose set has `global_size` elements, r being
// this rank's part: rank 0 chooses (as autotuned, over its own part) and every rank takes its
// choice, so that the ranks launch alike and sum in the same order. Kept per link and global size
// class; every rank asks at the same call (distributed loops are made by every rank in order).
template <class K, class... Args>
loop_launch autotuned_over(rank_link& link, index_t global_size, device_backend& device, const K& k,
                           signature_entry& entry, const loop_launch& fallback, range r, const Args&... args) {
  return k.cache().tuned(entry, device, tuning_key{link.id, size_class(global_size)}, [&] {
    std::string bytes;
    if (link.rank() == 0) {
      try {
        loop_launch chosen = fallback;
        if (r.end > r.start) {
          const loop_launch* known = k.cache().find_tuned(entry, device, tuning_key{0, size_class(r.end - r.start)});
          chosen = known != nullptr ? *known : choose_launch(device, k, entry, r, args...);
        }
        const std::vector<unsigned char> b = choice_bytes(chosen);
        bytes.assign(b.begin(), b.end());
      } catch (...) {
        // The others hear of it (no choice) rather than wait for one.
        std::string none;
        link.broadcast(none, 0);
        throw;
      }
    }
    link.broadcast(bytes, 0);
    const std::optional<loop_launch> chosen =
        bytes.empty() ? std::nullopt : choice_from_bytes(std::vector<unsigned char>(bytes.begin(), bytes.end()));
    if (!chosen) {
      throw error(fmt::format("autotuning '{}': rank 0 could not choose a launch (its error says why)", entry.ir->name));
    }
    if (cache::log_info() && link.rank() != 0) {
      cache::log("autotuning '{}': {} {}, as rank 0 chose", entry.ir->name, to_string(chosen->launch),
                 to_string(chosen->writes));
    }
    return *chosen;
  });
}

}  // namespace parloop::detail
