// SPDX-License-Identifier: MIT
// What a loop and the kernel pipeline call of distributed loops, found through a weak reference
// as Runtime finds the backends: the mpi component brings the definitions in
// (exec/distributed/entry.hpp), and a program without it compiles none of them.
#pragma once

#include <memory>
#include <string>

#include "parloop/cache/disk_entry.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/kernel/stats.hpp"

namespace parloop::detail {

// Declared only: exec/loop/loop_call.hpp includes the kernel pipeline, which includes this.
struct loop_call;

struct distributed_entry {
  // A par_loop over a set distributed over ranks (distributed_loop.hpp).
  void (*run)(const loop_call& call, const set_distribution& d);
  // The ranks' agreement on a kernel built while an agreeing_on lives (agreement.hpp).
  std::unique_ptr<launcher> (*agree)(rank_link& link, device_backend& device, const codegen::kernel_source& source,
                                     const cache::key_material& material, const std::string& name, kernel_stats& stats,
                                     const launcher* held);
};

// Null in a program that includes no header of the mpi component; a set is distributed, and an
// agreeing_on made, only by that component's code.
[[gnu::weak]] const distributed_entry* distributed_loops_entry();

inline const distributed_entry& distributed_loops() {
  if (&distributed_loops_entry == nullptr) {
    throw error(
        "a distributed set or a rank agreement without the mpi component's code in the program "
        "(include <parloop/mpi/distribute.hpp>)");
  }
  return *distributed_loops_entry();
}

}  // namespace parloop::detail
