// SPDX-License-Identifier: MIT
// This process's place among the MPI ranks of its node, as the launcher's environment says
// (Open MPI, MVAPICH, MPICH, Slurm, PMIx), read without MPI: so that a runtime opened before MPI_Init, or
// in a program without MPI, chooses alike. Device backends spread the ranks of a node over its
// GPUs by it; the threads backend shares the node's cores among them.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>

#include "parloop/core/environment.hpp"

namespace parloop::detail {

// The first of `names` that holds a whole number in [least, 1'000'000), or -1.
inline int launcher_number(std::initializer_list<const char*> names, int least) {
  for (const char* name : names) {
    const char* v = environment_value(name);
    if (v == nullptr) continue;
    if (const std::optional<int> n = whole_number<int>(v, least, 999'999)) return *n;
  }
  return -1;
}

// The tasks on node `node` from Slurm's SLURM_TASKS_PER_NODE, "2(x3),1" (2 on each of the first
// three nodes, 1 on the fourth): what a job without --ntasks-per-node says; -1 where it does not.
inline int slurm_tasks_on(std::string_view counts, int node) {
  while (!counts.empty() && node >= 0) {
    const std::size_t comma = counts.find(',');
    std::string_view item = counts.substr(0, comma);
    counts = comma == std::string_view::npos ? std::string_view() : counts.substr(comma + 1);
    int repeat = 1;
    if (const std::size_t open = item.find("(x"); open != std::string_view::npos && item.back() == ')') {
      const std::optional<int> r = whole_number<int>(item.substr(open + 2, item.size() - open - 3), 1, 999'999);
      if (!r) return -1;
      repeat = *r;
      item = item.substr(0, open);
    }
    const std::optional<int> tasks = whole_number<int>(item, 1, 999'999);
    if (!tasks) return -1;
    if (node < repeat) return *tasks;
    node -= repeat;
  }
  return -1;
}

// This process's rank among the ranks on its node, or -1 outside such a job.
inline int local_rank() {
  return launcher_number({"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                          "PMIX_LOCAL_RANK", "PMI_LOCAL_RANK"},
                         0);
}

// How many ranks of the job share this node (Open MPI, MVAPICH, MPICH, PMIx, Slurm); 1 outside
// an MPI job.
inline int local_rank_count() {
  int n = launcher_number({"OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                           "PMIX_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE", "PMI_LOCAL_SIZE"},
                          1);
  if (n < 0) {
    const char* counts = environment_value("SLURM_TASKS_PER_NODE");
    const int node = launcher_number({"SLURM_NODEID"}, 0);
    if (counts != nullptr && node >= 0) n = slurm_tasks_on(counts, node);
  }
  return n > 0 ? n : 1;
}

}  // namespace parloop::detail
