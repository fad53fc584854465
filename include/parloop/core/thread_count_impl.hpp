// SPDX-License-Identifier: MIT
// The definitions of core/thread_count.hpp's functions: compiled once into the library under
// PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <algorithm>
#include <atomic>
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

#include "parloop/config.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/local_ranks.hpp"
#include "parloop/core/thread_count.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

PARLOOP_FUNC int usable_cpus() {
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

PARLOOP_FUNC std::optional<int> cpus_in_list(std::string_view list) {
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

PARLOOP_FUNC int machine_cpus() {
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

PARLOOP_FUNC int cpus_for_rank() { return cpus_for_rank(usable_cpus(), machine_cpus(), local_rank_count()); }

PARLOOP_FUNC int threads_from_environment() {
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

}  // namespace parloop::detail

PARLOOP_COLD_END
