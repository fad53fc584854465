// SPDX-License-Identifier: MIT
// The distributed loops' entry, which a loop over a distributed set finds (seam.hpp): what the
// mpi component includes (mpi/distribute.hpp does). The loops themselves come with it inline, or
// are compiled once into the library (PARLOOP_COMPILED).
#pragma once

#include "parloop/config.hpp"
#include "parloop/exec/distributed/seam.hpp"

namespace parloop::detail {

// The distributed loop and the ranks' agreement (entry_impl.hpp).
PARLOOP_FUNC const distributed_entry* distributed_loops_definitions();

// `used`, so that every translation unit that includes this header emits it, and its call takes
// the definitions into the program (from a static library too, which a weak reference alone
// would not).
[[gnu::used]] inline const distributed_entry* distributed_loops_entry() { return distributed_loops_definitions(); }

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/exec/distributed/entry_impl.hpp"
#endif
