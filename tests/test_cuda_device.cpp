// SPDX-License-Identifier: MIT
// CUDA devices: choosing one by the environment (on made-up lists, so that it runs without a
// GPU), and listing them through the driver where there is one -- or the reason where there is
// none.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <parloop/backend/cuda/device.hpp>

#include "scoped_env.hpp"

namespace pl = parloop;
namespace cu = parloop::backend::cuda;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;

namespace {

cu::device made_up(int index, const std::string& name, int major, int minor) {
  return {index, index, name, major, minor, 132, 1024, 49152, std::size_t{141} << 30, 13000};
}

const std::vector<cu::device> two = {made_up(0, "NVIDIA H200", 9, 0), made_up(1, "NVIDIA GeForce RTX 4090", 8, 9)};

}  // namespace

TEST_CASE("a CUDA device is chosen by index or by part of its name", "[cuda][device]") {
  CHECK(cu::select_device(two, "").name == "NVIDIA H200");
  CHECK(cu::select_device(two, "1").name == "NVIDIA GeForce RTX 4090");
  CHECK(cu::select_device(two, "rtx").index == 1);
  CHECK(cu::select_device(two, "h200").arch() == "sm_90");
  CHECK(cu::select_device(two, "4090").arch() == "sm_89");
  CHECK_THROWS_AS(cu::select_device(two, "7"), pl::backend_unavailable);
  CHECK_THROWS_WITH(cu::select_device(two, "7"), Contains("CUDA: no device is numbered or named '7'; the devices are:") &&
                                                     Contains("0 NVIDIA H200 (sm_90, 132 SMs, 141 GiB)"));
  CHECK_THROWS_WITH(cu::select_device(two, "a100"), Contains("no device is numbered or named 'a100'") && Contains("1 NVIDIA GeForce"));
  CHECK_THROWS_WITH(cu::select_device({}, ""), Contains("CUDA: the driver sees no device"));
}

TEST_CASE("PARLOOP_CUDA_DEVICE comes before PARLOOP_DEVICE", "[cuda][device]") {
  scoped_env general("PARLOOP_DEVICE", "rtx");
  {
    scoped_env none("PARLOOP_CUDA_DEVICE", nullptr);
    CHECK(cu::device_selector() == "rtx");
  }
  scoped_env specific("PARLOOP_CUDA_DEVICE", "0");
  CHECK(cu::device_selector() == "0");
}

TEST_CASE("the driver lists the devices, or says why it cannot", "[cuda][device]") {
  std::vector<cu::device> listed;
  try {
    listed = cu::devices();
  } catch (const pl::backend_unavailable& e) {
    // No driver on this machine (CI): the reason names what is missing, and so does every later call.
    CHECK_THAT(std::string(e.what()), Contains("libcuda.so.1"));
    CHECK_THROWS_WITH(cu::devices(), Contains("libcuda.so.1"));
    return;
  }
  for (const cu::device& d : listed) {
    INFO(d.describe());
    CHECK_FALSE(d.name.empty());
    CHECK(d.major >= 5);
    CHECK(d.arch() == "sm_" + std::to_string(d.major) + std::to_string(d.minor));
    CHECK(d.multiprocessors >= 1);
    CHECK(d.max_threads_per_block >= 256);
    CHECK(d.total_memory > (std::size_t{1} << 30));
    CHECK(d.driver_version >= 12000);
  }
  // Listed once: the same list again.
  CHECK(&cu::devices() == &cu::devices());
}
