// SPDX-License-Identifier: MIT
// How many threads the threads backend runs on where the program does not say (settings::threads):
// PARLOOP_THREADS, else OMP_NUM_THREADS (what a user of OpenMP codes has already set; a value
// that is not a count is warned of and left), else this rank's CPUs: all its affinity mask where
// a launcher or batch system gave it a part of the machine, the machine's shared among the MPI
// ranks of its node where its mask is the whole machine, so that ranks x threads never
// oversubscribe the node by default.
#pragma once

#include <algorithm>
#include <optional>
#include <string_view>

#include "parloop/config.hpp"

namespace parloop::detail {

// The most threads a pool has: far beyond any node's cores, short of what a typo would ask.
inline constexpr int max_threads = 4096;

// The CPUs this process may run on (its affinity mask, which a batch system or launcher may
// have narrowed), else the machine's hardware threads.
PARLOOP_FUNC int usable_cpus();

// The CPUs a Linux CPU list names ("0-3,8,10-11\n": 7), or none where it is not one.
PARLOOP_FUNC std::optional<int> cpus_in_list(std::string_view list);

// The machine this process shares with the other ranks of its node: the CPUs of its cgroup's
// cpuset (a container's, a batch job's), else the online CPUs.
PARLOOP_FUNC int machine_cpus();

// The CPUs one rank's threads take: its mask's, where the mask is a part of the machine (the
// launcher placed it: srun --cpus-per-task, mpirun's binding); the machine's shared among the
// node's `ranks` where the mask is all of it.
inline int cpus_for_rank(int usable, int machine, int ranks) {
  return usable < machine ? usable : std::max(1, usable / std::max(1, ranks));
}

// This rank's CPUs (above), from the machine and the node's ranks.
PARLOOP_FUNC int cpus_for_rank();

// The threads backend's thread count where the program does not say (the top of this file).
PARLOOP_FUNC int threads_from_environment();

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/core/thread_count_impl.hpp"
#endif
