// SPDX-License-Identifier: MIT
// The threads backend: the kernel's lambda, as the host backend runs it, over a pool of threads
// (pool.hpp), loops shared among them as launch.hpp says and their blocks autotuned as
// tuning.hpp says; it compiles nothing. Runtime finds it through entry.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parloop/backend/threads/launch.hpp"
#include "parloop/backend/threads/pool.hpp"
#include "parloop/backend/threads/tuning.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/core/thread_team.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

class threads_team final : public thread_team {
 public:
  // The pool the settings ask for: PARLOOP_THREADS threads, pinned where PARLOOP_THREADS_PIN says.
  explicit threads_team(const settings& s)
      : pool_(s.threads, s.threads_pin, spin_for(s.threads)), id_(next_backend_id()) {}

  int size() const override { return pool_.size(); }

  void touch(index_t n, function_ref<void(range)> fill) override {
    const int threads = threads_for(pool_.size(), n);
    if (threads == 1) {
      fill(range{0, n});
      return;
    }
    pool_.run([&](int t) { fill(part_of(0, n, t, threads)); }, threads);
  }

  void run(const loop_call& call, signature_entry& entry, const loop_choice& how, range r) override {
    run_on_threads(pool_, call, r, thread_block_for(pool_, partials_, id_, call, entry, how, r), partials_);
  }

 private:
  thread_pool pool_;
  // The partial reductions of a loop's blocks, kept so that a warm loop allocates nothing.
  std::vector<std::byte> partials_;
  // What its autotuning choices are kept under (next_backend_id).
  std::uint64_t id_;
};

// The threads backend opened into `state` (entry.hpp); never fails.
inline std::string open_threads(runtime_state& state) {
  auto backend = std::make_shared<threads_team>(state.settings);
  state.device_name = parloop::detail::format("{} threads", backend->size());
  state.threads = std::move(backend);
  return "";
}

// Always available: its threads are the process's own.
inline backend_status threads_status(const settings&) { return {backend_kind::threads, true, ""}; }

}  // namespace parloop::detail
