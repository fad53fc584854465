// SPDX-License-Identifier: MIT
// op_partition and op_renumber. On one process there is nothing to partition: op_partition says
// so in one line. op_renumber orders the sets its map links for locality (pl::renumber), which
// parloop's OP2 API otherwise does before the first loop.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/order/renumber.hpp"

namespace parloop::op2 {

// op_timers waits for every rank, as OP2's does.
inline void barrier() {
  const std::unique_ptr<program>& p = program::slot();
  if (p && p->mpi) p->mpi->barrier();
}

// Over MPI, distributes the mesh (op2/distributed.hpp says how the library and routine named are
// taken); in one process, says there is nothing to partition.
inline void partition(const char* lib, const char* routine, op_set_core* prime_set, op_map_core* prime_map,
                      op_dat_core* coords) {
  program& p = program::current("op_partition");
  if (p.mpi) {
    if (p.mpi->partitioned()) throw argument_error("op_partition: called twice");
    p.mpi->partition(p, lib, routine, prime_set, prime_map, coords);
    return;
  }
  // OP2's applications pass a null routine with some libraries ("RANDOM"): named only where given.
  std::printf("op_partition: one process, nothing to partition (%s%s%s asked)\n", lib != nullptr ? lib : "no library",
              routine != nullptr ? " " : "", routine != nullptr ? routine : "");
}

// OP2's op_halo_create: over MPI, the mesh distributed without a partitioner -- the first set's
// elements stay on the ranks that declared them -- with its halos; in one process, nothing to do.
inline void halo_create() {
  program& p = program::current("op_halo_create");
  if (!p.mpi) return;
  if (p.mpi->partitioned())
    throw argument_error("op_halo_create: the mesh is distributed already (op_partition made its halos)");
  p.mpi->partition(p, "BLOCK", "DECLARED", nullptr, nullptr, nullptr);
}

inline void renumber_from(op_map_core* base) {
  program& p = program::current("op_renumber");
  if (base == nullptr) throw argument_error("op_renumber: the map is null");
  // Over MPI each rank orders its own share when op_partition distributes the mesh.
  if (p.mpi) return;
  renumber(*base->to->set);
  p.ordered = true;
}

// The mesh renumbered for locality before the first loop (pl::renumber), from the set the most
// maps lead to -- what cells are to Airfoil's edges -- unless PARLOOP_OP2_RENUMBER=0.
inline void order_mesh(program& p) {
  if (p.ordered) return;
  p.ordered = true;
  // Over MPI each rank ordered its own share when op_partition distributed the mesh.
  if (p.mpi) return;
  if (p.maps.empty() || !p.runtime.settings().op2_renumber) return;
  const op_set_core* best = nullptr;
  std::size_t most = 0;
  for (const auto& s : p.sets) {
    if (s->set->distribution() != nullptr) return;
    const std::size_t into = static_cast<std::size_t>(std::count_if(
        p.maps.begin(), p.maps.end(), [&](const auto& m) { return m->to == s.get() && m->from != s.get(); }));
    if (into > most || (into == most && best != nullptr && s->size > best->size)) {
      best = s.get();
      most = into;
    }
  }
  if (best != nullptr && most > 0) renumber(*best->set);
}

}  // namespace parloop::op2
