// SPDX-License-Identifier: MIT
// A rank that fails while the others wait in a collective: pl::mpi::run reports it with its rank
// and ends the job (the test passes on that message, within a timeout: no hang).
#include <mpi.h>

#include <parloop/error.hpp>
#include <parloop/mpi/session.hpp>

int main(int argc, char** argv) {
  return parloop::mpi::run(argc, argv, [] {
    if (parloop::mpi::rank_of(MPI_COMM_WORLD) == 1) throw parloop::error("rank 1 cannot go on");
    parloop::mpi::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return 0;
  });
}
