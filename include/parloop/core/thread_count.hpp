// SPDX-License-Identifier: MIT
// How many threads the threads backend runs on where the program does not say (settings::threads):
// PARLOOP_THREADS, else OMP_NUM_THREADS (what a user of OpenMP codes has already set; a value
// that is not a count is warned of and left), else this rank's CPUs: all its affinity mask where
// a launcher or batch system gave it a part of the machine, the machine's shared among the MPI
// ranks of its node where its mask is the whole machine, so that ranks x threads never
// oversubscribe the node by default.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

#include "parloop/core/environment.hpp"
#include "parloop/core/local_ranks.hpp"
#include "parloop/core/thread_pool.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

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

// The CPUs a Linux CPU list names ("0-3,8,10-11\n": 7), or none where it is not one.
inline std::optional<int> cpus_in_list(std::string_view list) {
  while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.remove_suffix(1);
  if (list.empty()) return std::nullopt;
  int count = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    const std::size_t dash = item.find('-');
    const std::optional<int> first = whole_number<int>(item.substr(0, dash), 0, 1 << 20);
    const std::optional<int> last =
        dash == std::string_view::npos ? first : whole_number<int>(item.substr(dash + 1), 0, 1 << 20);
    if (!first || !last || *last < *first) return std::nullopt;
    count += *last - *first + 1;
  }
  return count;
}

// The machine this process shares with the other ranks of its node: the CPUs of its cgroup's
// cpuset (a container's, a batch job's), else the online CPUs.
inline int machine_cpus() {
#if defined(__linux__)
  std::ifstream groups("/proc/self/cgroup");
  std::string line, place;
  while (std::getline(groups, line)) {
    if (line.starts_with("0::")) place = line.substr(3);
  }
  for (const std::string& file :
       {"/sys/fs/cgroup" + place + "/cpuset.cpus.effective", std::string("/sys/fs/cgroup/cpuset.cpus.effective")}) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    if (const std::optional<int> n = cpus_in_list(text.str())) return *n;
  }
  if (const long n = sysconf(_SC_NPROCESSORS_ONLN); n > 0) return static_cast<int>(n);
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The CPUs one rank's threads take: its mask's, where the mask is a part of the machine (the
// launcher placed it: srun --cpus-per-task, mpirun's binding); the machine's shared among the
// node's `ranks` where the mask is all of it.
inline int cpus_for_rank(int usable, int machine, int ranks) {
  return usable < machine ? usable : std::max(1, usable / std::max(1, ranks));
}

inline int cpus_for_rank() { return cpus_for_rank(usable_cpus(), machine_cpus(), local_rank_count()); }

inline int threads_from_environment() {
  if (const char* v = environment_value("PARLOOP_THREADS")) {
    if (const std::optional<int> n = whole_number<int>(v, 1, max_threads)) return *n;
    throw argument_error(
        parloop::detail::format("PARLOOP_THREADS is '{}': use a number of threads from 1 to {}", v, max_threads));
  }
  const int by_default = cpus_for_rank();
  // OMP_NUM_THREADS may list one count per nesting level ("8,2"): the first is the outer level's,
  // which is ours. Another program's variable: a value that is not a count does not stop parloop.
  if (const char* v = environment_value("OMP_NUM_THREADS")) {
    const std::string_view list(v);
    if (const std::optional<int> n = whole_number<int>(list.substr(0, list.find(',')), 1, max_threads)) return *n;
    static std::atomic<bool> said{false};
    warn_once(said,
              parloop::detail::format("OMP_NUM_THREADS is '{}', not a number of threads from 1 to {}: the threads "
                                      "backend runs {} (PARLOOP_THREADS sets it)",
                                      v, max_threads, by_default));
  }
  return by_default;
}

// How long the pool's waiting threads spin (thread_pool.hpp says why): long while the node's
// ranks x threads fit its CPUs, briefly where they oversubscribe them.
inline std::chrono::microseconds spin_for(int threads) { return threads <= cpus_for_rank() ? spin_alone : spin_shared; }

}  // namespace parloop::detail
