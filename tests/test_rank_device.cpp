// SPDX-License-Identifier: MIT
// Each MPI rank on a node opens the GPU of its local rank, through Runtime::open, as a program
// does: on the two made-up devices of the test driver (fake_cuda_driver.cpp, found first on
// LD_LIBRARY_PATH), so that this runs where there is no GPU. ctest runs it alone, with each
// launcher's variable, and under mpiexec on 2 ranks, where the launcher sets them.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include <parloop/backend/cuda/backend.hpp>
#include <parloop/parloop.hpp>

#include "scoped_env.hpp"

namespace pl = parloop;
using parloop_test::scoped_env;

namespace {

const char* const launcher_variables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                                          "PMI_LOCAL_RANK"};

std::string opened() { return pl::Runtime::open(pl::backend_kind::cuda).device_name(); }
std::string opened_best() { return pl::Runtime::open().device_name(); }
std::string test_gpu(int index) {
  return "CUDA " + std::to_string(index) + " parloop test GPU " + std::to_string(index) + " (sm_90, 132 SMs, 4 GiB)";
}

}  // namespace

TEST_CASE("Runtime::open takes the device of the launcher's local rank, modulo the devices", "[cuda][device][mpi]") {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return;  // the case below is the one under mpiexec
  const scoped_env no_backend("PARLOOP_BACKEND", nullptr), no_cuda("PARLOOP_CUDA_DEVICE", nullptr),
      no_device("PARLOOP_DEVICE", nullptr);
  const scoped_env none0(launcher_variables[0], nullptr), none1(launcher_variables[1], nullptr),
      none2(launcher_variables[2], nullptr), none3(launcher_variables[3], nullptr);
  CHECK(opened() == test_gpu(0));
  for (const char* variable : launcher_variables) {
    INFO(variable);
    for (int rank = 0; rank < 4; ++rank) {
      const scoped_env local(variable, std::to_string(rank).c_str());
      CHECK(opened() == test_gpu(rank % 2));
      CHECK(opened_best() == test_gpu(rank % 2));
    }
  }
  // A selector names the device whatever the rank; a rank that is no number is no rank.
  const scoped_env local("OMPI_COMM_WORLD_LOCAL_RANK", "1");
  {
    const scoped_env named("PARLOOP_CUDA_DEVICE", "0");
    CHECK(opened() == test_gpu(0));
  }
  {
    const scoped_env named("PARLOOP_DEVICE", "GPU 0");
    CHECK(opened() == test_gpu(0));
  }
  const scoped_env junk("OMPI_COMM_WORLD_LOCAL_RANK", "one");
  CHECK(opened() == test_gpu(0));
}

TEST_CASE("under mpiexec, each rank opens its own GPU", "[cuda][device][mpi]") {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr || local == nullptr) return;  // not under mpiexec
  CHECK(opened() == test_gpu(std::atoi(local) % 2));
}
