// SPDX-License-Identifier: MIT
// How many threads the threads backend runs on, and whether it pins them, from the environment:
// PARLOOP_THREADS, else OMP_NUM_THREADS (what a user of OpenMP codes has already set), else the
// CPUs this process may run on shared among the MPI ranks of its node, so that ranks x threads
// never oversubscribe the node by default. PARLOOP_THREADS_PIN=1 binds each thread to a CPU.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <fmt/format.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include "parloop/core/environment.hpp"
#include "parloop/core/local_ranks.hpp"
#include "parloop/core/thread_pool.hpp"
#include "parloop/error.hpp"

namespace parloop::detail {

// The CPUs this process may run on (its affinity mask, which a batch system or launcher may
// have narrowed), else the machine's hardware threads.
inline int usable_cpus() {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    const int n = CPU_COUNT(&allowed);
    if (n > 0) return n;
  }
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A thread count from `name`: a whole number from 1 to max_threads. OMP_NUM_THREADS may list one
// count per nesting level ("8,2"): the first is the outer level's, which is ours.
inline int threads_in(const char* name, bool first_of_list) {
  const char* v = environment_value(name);
  if (v == nullptr) return 0;
  std::string text(v);
  if (first_of_list) text = text.substr(0, text.find(','));
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 1 || n > max_threads) {
    throw argument_error(fmt::format("{} is '{}': use a number of threads from 1 to {}", name, v, max_threads));
  }
  return static_cast<int>(n);
}

inline int threads_from_environment() {
  if (const int n = threads_in("PARLOOP_THREADS", false)) return n;
  if (const int n = threads_in("OMP_NUM_THREADS", true)) return n;
  return std::max(1, usable_cpus() / local_rank_count());
}

// How long the pool's waiting threads spin (thread_pool.hpp says why): long while the node's
// ranks x threads fit its CPUs, briefly where they oversubscribe them.
inline std::chrono::microseconds spin_for(int threads) {
  return static_cast<long long>(threads) * local_rank_count() <= usable_cpus() ? spin_alone : spin_shared;
}

inline bool pinning_from_environment() {
  return switch_from_environment("PARLOOP_THREADS_PIN", false,
                                 "binds worker thread i to the i-th CPU the process may use",
                                 "leaves the threads where the system puts them");
}

}  // namespace parloop::detail
