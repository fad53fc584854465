// SPDX-License-Identifier: MIT
// MPI as parloop's distributed parts use it: a run of a program's body on every rank, with MPI
// initialized where the program has not done it, and an exception on any rank reported with its
// rank and ending the whole job -- the other ranks may be waiting in a collective, and a rank that
// only returned would leave them there for ever. And MPI's return codes as parloop errors.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>

#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::mpi {

// Throws parloop::error naming `what` and MPI's message where `code` is not MPI_SUCCESS (with an
// error handler that returns; MPI's default ends the job itself).
inline void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(parloop::detail::format("{} failed: {}", what, std::string(text, static_cast<std::size_t>(length))));
}

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

inline int size_of(MPI_Comm comm) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// Runs body() on this rank and returns its exit status; MPI is initialized first unless the
// program did, and then finalized here. What body throws is said on standard error as
// "parloop: rank R of N failed: ..." and ends every rank of MPI_COMM_WORLD (MPI_Abort, status 1).
template <class Body>
int run(int& argc, char**& argv, Body&& body) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  }
  const auto fail = [](const char* what) {
    int rank = -1, size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::fprintf(stderr, "parloop: rank %d of %d failed: %s\n", rank, size, what);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  };
  int status = 0;
  try {
    status = body();
  } catch (const std::exception& e) {
    status = fail(e.what());
  } catch (...) {
    status = fail("an exception that is not a std::exception");
  }
  if (initialized == 0) MPI_Finalize();
  return status;
}

}  // namespace parloop::mpi
