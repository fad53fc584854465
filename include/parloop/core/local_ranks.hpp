// SPDX-License-Identifier: MIT
// This process's place among the MPI ranks of its node, as the launcher's environment says
// (Open MPI, MPICH, Slurm, PMIx), read without MPI: so that a runtime opened before MPI_Init, or
// in a program without MPI, chooses alike. Device backends spread the ranks of a node over its
// GPUs by it; the threads backend shares the node's cores among them.
#pragma once

#include <cstdlib>
#include <initializer_list>

#include "parloop/core/environment.hpp"

namespace parloop::detail {

// The first of `names` that holds a whole number in [least, 1'000'000), or -1.
inline int launcher_number(std::initializer_list<const char*> names, long least) {
  for (const char* name : names) {
    const char* v = environment_value(name);
    if (v == nullptr) continue;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n >= least && n < 1'000'000) return static_cast<int>(n);
  }
  return -1;
}

// This process's rank among the ranks on its node, or -1 outside such a job.
inline int local_rank() {
  return launcher_number({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK",
                          "PMI_LOCAL_RANK"},
                         0);
}

// How many ranks of the job share this node; 1 outside an MPI job.
inline int local_rank_count() {
  const int n = launcher_number({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE",
                                 "SLURM_NTASKS_PER_NODE", "PMI_LOCAL_SIZE"},
                                1);
  return n > 0 ? n : 1;
}

}  // namespace parloop::detail
