// SPDX-License-Identifier: MIT
// OP2's MPI header with OP2's name: an application that includes it runs over MPI ranks (each
// declares its block of the mesh, then op_partition distributes it: op2/distributed.hpp). It
// links parloop::mpi as well as parloop::op2.
#pragma once

#include <mpi.h>

#include "op_lib_core.h"
#include "parloop/op2/distributed.hpp"

// OP2's MPI header makes MPI_ROOT rank 0 (MPI's own is a marker for inter-communicators), and
// OP2's MPI applications read their mesh on rank MPI_ROOT and send it out with it as the root.
#ifdef MPI_ROOT
#undef MPI_ROOT
#endif
#define MPI_ROOT 0

// Installed before main: op_init then starts MPI and distributes.
inline const bool parloop_op2_over_mpi =
    (parloop::op2::distribution_maker() = &parloop::op2::make_mpi_distribution, true);
