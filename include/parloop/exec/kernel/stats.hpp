// SPDX-License-Identifier: MIT
// What each kernel cost: its counters (kept always, read through pl::kernel's accessors) and,
// with PARLOOP_STATS=1, a report at the end of the process -- one summary line, then a table
// per kernel name as OP2 users know it (calls, time, compile and load time, bandwidth).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

// One kernel's counters. Shared with the report, so they outlive the kernel.
struct kernel_stats {
  explicit kernel_stats(std::string kernel_name) : name(std::move(kernel_name)) {}
  const std::string name;
  std::atomic<std::uint64_t> traces{0};
  std::atomic<std::uint64_t> compiles{0};
  std::atomic<std::uint64_t> disk_hits{0};
  // Launchers made from another rank's kernel (a distributed loop's, exec/kernel/kernel_cache.hpp).
  std::atomic<std::uint64_t> received{0};
  // Device launches that found their compiled kernel already in memory.
  std::atomic<std::uint64_t> memory_hits{0};
  // Of those, the ones that took the kernel cache's lock to find it: only a first launch on a
  // runtime with a kernel another thread built, or one that must first be agreed on over a link.
  std::atomic<std::uint64_t> locked_hits{0};
  // par_loop calls that ran, on any backend, empty ranges too: on a device each is a compile, a
  // disk hit, a kernel received from another rank or a memory hit.
  std::atomic<std::uint64_t> launches{0};
  // Loops autotuned by timing their candidate launches (core/autotune.hpp).
  std::atomic<std::uint64_t> tunings{0};
  std::atomic<std::uint64_t> compile_ns{0};
  std::atomic<std::uint64_t> load_ns{0};
  // Only with PARLOOP_STATS=1: each call timed to its end, and the bytes it declares it moves.
  std::atomic<std::uint64_t> run_ns{0};
  std::atomic<std::uint64_t> bytes{0};
};

inline std::uint64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

// Whether this process reports at exit: a runtime opened with PARLOOP_STATS=1 (settings::stats)
// turns it on for good.
inline bool stats_enabled() { return process_settings().stats.load(std::memory_order_relaxed); }

}  // namespace parloop::detail

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The report's text: one line of totals, then one row per kernel name (kernels of one name are
// added up), in the order the names first appear.
inline std::string stats_text(const std::vector<std::shared_ptr<const kernel_stats>>& kernels) {
  struct row {
    std::string name;
    std::uint64_t calls = 0, run_ns = 0, compile_ns = 0, load_ns = 0, bytes = 0;
  };
  std::vector<row> rows;
  std::uint64_t compiled = 0, disk_hits = 0, memory_hits = 0, launches = 0;
  for (const auto& k : kernels) {
    compiled += k->compiles;
    disk_hits += k->disk_hits;
    memory_hits += k->memory_hits;
    launches += k->launches;
    auto r = std::find_if(rows.begin(), rows.end(), [&](const row& x) { return x.name == k->name; });
    if (r == rows.end()) r = rows.insert(rows.end(), row{.name = k->name});
    r->calls += k->launches;
    r->run_ns += k->run_ns;
    r->compile_ns += k->compile_ns;
    r->load_ns += k->load_ns;
    r->bytes += k->bytes;
  }
  std::string out = parloop::detail::format("parloop stats: compiled={} disk_hits={} memory_hits={} launches={}\n",
                                            compiled, disk_hits, memory_hits, launches);
  std::size_t width = std::string_view("kernel").size();
  for (const row& r : rows) width = std::max(width, r.name.size());
  out += parloop::detail::format("  {:<{}} {:>10} {:>12} {:>12} {:>12} {:>10}\n", "kernel", width, "calls", "time (s)",
                                 "compile (s)", "load (s)", "GB/s");
  for (const row& r : rows) {
    // Bytes per nanosecond are GB/s.
    const double gb_per_s = r.run_ns > 0 ? static_cast<double>(r.bytes) / static_cast<double>(r.run_ns) : 0.0;
    out += parloop::detail::format("  {:<{}} {:>10} {:>12.6f} {:>12.6f} {:>12.6f} {:>10.2f}\n", r.name, width, r.calls,
                                   static_cast<double>(r.run_ns) * 1e-9, static_cast<double>(r.compile_ns) * 1e-9,
                                   static_cast<double>(r.load_ns) * 1e-9, gb_per_s);
  }
  return out;
}

// The report, printed on standard error when the process exits if stats are on by then: every
// kernel made in this process that is still alive, and every one made, or alive, once they were
// on (kept for the report past its kernel). Made with the first kernel, so that it is destroyed --
// and printed -- after every kernel made later; a kernel made before a runtime turned stats on
// (a static one) is in it too.
class stats_report {
 public:
  static stats_report& instance() {
    static stats_report report;
    return report;
  }
  stats_report(const stats_report&) = delete;
  stats_report& operator=(const stats_report&) = delete;
  ~stats_report() {
    if (!stats_enabled()) return;
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<const kernel_stats>> alive;
    for (const auto& k : seen_) {
      if (auto p = k.lock()) alive.push_back(std::move(p));
    }
    std::fputs(stats_text(alive).c_str(), stderr);
  }

  void add(const std::shared_ptr<const kernel_stats>& k) {
    std::lock_guard lock(mutex_);
    seen_.push_back(k);
    if (!stats_enabled()) {
      // Kernels come and go while nothing reports: the gone ones are forgotten now and then.
      if (seen_.size() >= 2 * seen_after_prune_) {
        std::erase_if(seen_, [](const std::weak_ptr<const kernel_stats>& w) { return w.expired(); });
        seen_after_prune_ = std::max<std::size_t>(64, seen_.size());
      }
      return;
    }
    // From the first kernel made with stats on, every kernel seen is kept for the report: the
    // earlier ones that are alive too.
    if (promoted_) {
      kept_.push_back(k);
      return;
    }
    for (const auto& w : seen_) {
      if (auto p = w.lock()) kept_.push_back(std::move(p));
    }
    promoted_ = true;
  }

 private:
  stats_report() = default;
  std::mutex mutex_;
  std::vector<std::weak_ptr<const kernel_stats>> seen_;
  std::vector<std::shared_ptr<const kernel_stats>> kept_;
  bool promoted_ = false;
  std::size_t seen_after_prune_ = 64;
};

// A new kernel's counters, in the report.
inline std::shared_ptr<kernel_stats> make_kernel_stats(std::string name) {
  auto k = std::make_shared<kernel_stats>(std::move(name));
  stats_report::instance().add(k);
  return k;
}

}  // namespace parloop::detail

PARLOOP_COLD_END
