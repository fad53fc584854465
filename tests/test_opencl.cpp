// SPDX-License-Identifier: MIT
// The OpenCL runtime pieces on a real OpenCL implementation (PoCL in CI): devices and their
// selection, device memory, and dats whose copies move between host and device.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>

#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include <parloop/backend/opencl/device.hpp>
#include <parloop/backend/opencl/backend.hpp>
#include <parloop/parloop.hpp>

#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_opencl {

namespace pl = parloop;
namespace ocl = parloop::backend::opencl;
using Catch::Matchers::Contains;

TEST_CASE("OpenCL devices are listed with what they can do", "[opencl][device]") {
  const auto all = ocl::devices();
  REQUIRE_FALSE(all.empty());
  for (const auto& d : all) {
    INFO(d.describe());
    CHECK_FALSE(d.name.empty());
    CHECK(d.compute_units >= 1);
    CHECK(d.max_work_group_size >= 1);
    CHECK(d.max_allocation > 0);
    CHECK_THAT(d.version, Contains("OpenCL"));
    // Asked of the device another way: a device without doubles reports no double capabilities.
    cl_device_fp_config doubles = 0;
    REQUIRE(clGetDeviceInfo(d.id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof doubles, &doubles, nullptr) == CL_SUCCESS);
    CHECK(d.has_fp64() == (doubles != 0));
  }
  CHECK_FALSE(all.front().has_extension("cl_khr_fp6"));  // whole words only
}

TEST_CASE("without a selector, MPI ranks on a node spread over its OpenCL GPUs", "[opencl][device]") {
  // Made-up devices: a CPU, then two GPUs (their ids only tell them apart).
  std::vector<ocl::device> all(3);
  for (int i = 0; i < 3; ++i) {
    all[static_cast<std::size_t>(i)].device_index = i;
    all[static_cast<std::size_t>(i)].is_gpu = i > 0;
    all[static_cast<std::size_t>(i)].name = "device " + std::to_string(i);
  }
  CHECK(ocl::select_device(all, "", -1).device_index == 1);
  CHECK(ocl::select_device(all, "", 0).device_index == 1);
  CHECK(ocl::select_device(all, "", 1).device_index == 2);
  CHECK(ocl::select_device(all, "", 2).device_index == 1);
  // Without GPUs, the first device whatever the rank.
  all[1].is_gpu = all[2].is_gpu = false;
  CHECK(ocl::select_device(all, "", 1).device_index == 0);
}

TEST_CASE("an OpenCL device is chosen by index or by name", "[opencl][device]") {
  const auto all = ocl::devices();
  REQUIRE_FALSE(all.empty());
  const auto& first = all.front();

  // By default the first GPU, else the first device.
  const auto chosen = ocl::select_device(all, "", -1);
  bool any_gpu = false;
  for (const auto& d : all) any_gpu = any_gpu || d.is_gpu;
  CHECK(chosen.is_gpu == any_gpu);
  if (!any_gpu) CHECK(chosen.id == first.id);

  CHECK(ocl::select_device(all, "0:0", -1).id == all.front().id);
  CHECK(ocl::select_device(all, first.name.substr(0, 4), -1).id == first.id);
  std::string platform_in_lower_case = first.platform_name;
  for (char& c : platform_in_lower_case) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  CHECK(ocl::select_device(all, platform_in_lower_case, -1).platform == first.platform);

  CHECK_THROWS_AS(ocl::select_device(all, "7:3", -1), pl::backend_unavailable);
  CHECK_THROWS_WITH(ocl::select_device(all, "7:3", -1),
                    Contains("no device 7:3; the devices are:") && Contains(first.name));
  CHECK_THROWS_WITH(ocl::select_device(all, "no-such-device", -1), Contains("no device matches 'no-such-device'"));
  CHECK_THROWS_WITH(ocl::select_device({}, "", -1), Contains("no platform with a device"));
}

TEST_CASE("Runtime::open takes the OpenCL device the environment names, before PARLOOP_DEVICE and the local rank",
          "[opencl][device]") {
  const auto all = ocl::devices();
  REQUIRE_FALSE(all.empty());
  const parloop_test::scoped_env no_backend("PARLOOP_BACKEND", nullptr);
  {
    const parloop_test::scoped_env env("PARLOOP_OPENCL_DEVICE", "0:0");
    const parloop_test::scoped_env other("PARLOOP_DEVICE", "ignored");
    const parloop_test::scoped_env rank("OMPI_COMM_WORLD_LOCAL_RANK", "1");
    CHECK(pl::Runtime::open(pl::backend_kind::opencl).device_name() == "OpenCL " + all.front().describe());
  }
  {
    const parloop_test::scoped_env env("PARLOOP_OPENCL_DEVICE", nullptr);
    const parloop_test::scoped_env other("PARLOOP_DEVICE", "nothing-like-this");
    CHECK_THROWS_WITH(pl::Runtime::open(pl::backend_kind::opencl), Contains("no device matches 'nothing-like-this'"));
  }
  // Without a selector, local rank r takes GPU r modulo the GPUs (select_device's test above on
  // made-up lists; test_rank_device opens made-up CUDA devices by rank), else the first device.
  const parloop_test::scoped_env env("PARLOOP_OPENCL_DEVICE", nullptr);
  const parloop_test::scoped_env other("PARLOOP_DEVICE", nullptr);
  const parloop_test::scoped_env rank("OMPI_COMM_WORLD_LOCAL_RANK", "1");
  std::vector<std::string> gpus;
  for (const auto& d : all) {
    if (d.is_gpu) gpus.push_back("OpenCL " + d.describe());
  }
  CHECK(pl::Runtime::open(pl::backend_kind::opencl).device_name() ==
        (gpus.empty() ? "OpenCL " + all.front().describe() : gpus[1 % gpus.size()]));
}

TEST_CASE("OpenCL device memory: round trips, empty buffers, and a clear error when too large", "[opencl][memory]") {
  const auto ctx = ocl::context(ocl::chosen_device(pl::settings::from_environment()));
  ocl::memory mem(ctx);
  std::vector<double> in(1000);
  std::iota(in.begin(), in.end(), 0.5);
  auto b = mem.allocate(in.size() * sizeof(double));
  mem.upload(*b, in.data(), in.size() * sizeof(double));
  std::vector<double> out(in.size(), -1.0);
  mem.download(*b, out.data(), out.size() * sizeof(double));
  CHECK(out == in);

  CHECK_NOTHROW(mem.allocate(0));

  const std::size_t too_large = ctx.device().max_allocation * 4 + 4096;
  CHECK_THROWS_WITH(mem.allocate(too_large),
                    Contains("cannot allocate " + std::to_string(too_large) + " bytes on " + ctx.device().name));
}

TEST_CASE("a dat moves between host and an OpenCL device only when a copy is stale", "[opencl][memory]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::opencl);
  auto& mem = *rt.state()->backend;
  const auto& ctx = static_cast<ocl::backend&>(mem).opencl_context();
  // One component: the device keeps it as the host does (test_core transposes).
  const pl::Set s(rt, 1000);
  std::vector<float> init(1000);
  std::iota(init.begin(), init.end(), 1.0f);
  pl::Dat<float> d(s, init);
  auto& array = d.state().array;

  auto& on_device = static_cast<ocl::buffer&>(array.ensure_device(mem));
  array.ensure_device(mem);
  CHECK(rt.transfers().to_device == 1);
  CHECK(rt.transfers().to_device_bytes == 4000);

  // Change the device copy behind the host's back, as a kernel would, and mark it.
  std::vector<float> twice(init);
  for (float& v : twice) v *= 2.0f;
  REQUIRE(clEnqueueWriteBuffer(ctx.queue(), on_device.get(), CL_TRUE, 0, 4000, twice.data(), 0, nullptr, nullptr) ==
          CL_SUCCESS);
  array.device_written();
  CHECK(d.host()[999] == 2000.0f);
  CHECK(d.host()[0] == 2.0f);
  CHECK(rt.transfers().to_host == 1);
  CHECK(rt.transfers().to_host_bytes == 4000);
}

TEST_CASE("runtimes opened one after another on an OpenCL device share its context, each with a queue of its own",
          "[opencl][device]") {
  const auto context_of = [](const pl::Runtime& rt) -> const ocl::context& {
    return static_cast<const ocl::backend&>(*rt.state()->backend).opencl_context();
  };
  cl_context first = nullptr;
  {
    const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::opencl);
    first = context_of(rt).get();
  }
  // The first runtime is closed: its context is kept (PoCL loads its kernel library into each
  // context it compiles in), and the two open now have queues of their own on it.
  const pl::Runtime a = pl::Runtime::open(pl::backend_kind::opencl);
  const pl::Runtime b = pl::Runtime::open(pl::backend_kind::opencl);
  CHECK(context_of(a).get() == first);
  CHECK(context_of(b).get() == first);
  CHECK(context_of(a).queue() != context_of(b).queue());
}

namespace {

// A runtime on an OpenCL device described by `d`: a test changes the description to play a
// device that lacks a feature.
pl::Runtime runtime_on(const ocl::device& d) {
  return pl::detail::runtime_on(std::make_shared<ocl::backend>(d, pl::settings::from_environment()));
}

}  // namespace

TEST_CASE("a device without double precision refuses a double kernel clearly", "[opencl][errors]") {
  ocl::device without = ocl::select_device(ocl::devices(), "", -1);
  without.extensions = "";  // as a device without cl_khr_fp64 reports itself
  const pl::Runtime rt = runtime_on(without);
  const pl::Set s(rt, 10);
  pl::Dat<double> x(s);
  pl::Dat<float> f(s);
  auto twice = pl::kernel("twice", [](auto x) { x *= 2; });
  CHECK_THROWS_WITH(pl::par_loop(twice, s, x(pl::RW)),
                    Contains("kernel 'twice' computes in double") && Contains("lacks cl_khr_fp64"));
  // A float kernel still runs there.
  f.host_view(pl::WRITE)[3] = 1.5f;
  pl::par_loop(twice, s, f(pl::RW));
  CHECK(f.host()[3] == 3.0f);
  // And one with 64-bit integer atomics is refused too.
  const pl::Set cells(rt, 4);
  const pl::Map m(s, cells, 1, std::vector<pl::index_t>(10, 2));
  pl::Dat<std::int64_t> count(cells);
  auto tally = pl::kernel("tally", [](auto c) { c += 1; });
  CHECK_THROWS_WITH(pl::par_loop(tally, s, pl::conflicts::atomics, count(pl::INC, m, 0)),
                    Contains("needs 64-bit atomics"));
  // Coloured, it needs none.
  pl::par_loop(tally, s, pl::conflicts::colors, count(pl::INC, m, 0));
  CHECK(count.host()[2] == 10);
}

TEST_CASE("a block larger than the device allows is refused", "[opencl][errors]") {
  // A device that takes at most 64 work-items per group, as small devices report themselves.
  ocl::device small = ocl::select_device(ocl::devices(), "", -1);
  small.max_work_group_size = 64;
  const pl::Runtime rt = runtime_on(small);
  const pl::Set s(rt, 100);
  pl::Dat<float> x(s);
  auto k = pl::kernel("one", [](auto x) { x = 1.0f; });
  CHECK_THROWS_WITH(pl::par_loop(k, s, pl::split_n_across_workgroups{128}, x(pl::WRITE)),
                    Contains("a block of 128 work-items exceeds OpenCL device") && Contains("maximum of 64"));
  pl::par_loop(k, s, pl::split_n_across_workgroups{64}, x(pl::WRITE));
  CHECK(x.host()[99] == 1.0f);
  CHECK_THROWS_WITH(pl::par_loop(k, s, pl::split_n_across_workgroups{0}, x(pl::WRITE)),
                    Contains("the block must be 1 to 1024"));
}

TEST_CASE("a reduction that needs more local memory than the device has is refused", "[opencl][errors]") {
  // A device with 1 KB of local memory, as small devices report themselves.
  ocl::device small = ocl::select_device(ocl::devices(), "", -1);
  small.local_memory = 1024;
  const pl::Runtime rt = runtime_on(small);
  const pl::Set s(rt, 1000);
  pl::Dat<double> x(s, std::vector<double>(1000, 0.5));
  pl::Global<double> total(rt, 0.0);
  auto sum = pl::kernel("sum_x", [](auto x, auto total) { total += x; });
  CHECK_THROWS_WITH(
      pl::par_loop(sum, s, pl::split_n_across_workgroups{256}, x(pl::READ), total(pl::INC)),
      Contains("kernel 'sum_x': its global reductions and staged increments (conflicts::blocks) need 2052 "
               "bytes of local memory for a block of 256") &&
          Contains("has 1024; use a smaller block, or conflicts::colors or atomics"));
  pl::par_loop(sum, s, pl::split_n_across_workgroups{64}, x(pl::READ), total(pl::INC));
  CHECK(total.value() == 500.0);
}

TEST_CASE("PARLOOP_FAST_MATH=1 builds with -cl-fast-relaxed-math, part of the device signature", "[opencl][options]") {
  const auto run = [](const pl::Runtime& rt) {
    const pl::Set s(rt, 1000);
    std::vector<float> x0(1000);
    for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = 0.01f * static_cast<float>(i) - 3.0f;
    pl::Dat<float> x(s, x0), y(s);
    auto k = pl::kernel("fast_cl", [](auto x, auto y) { y = pl::sqrt(pl::fabs(x)) / (1.0f + pl::exp(x)); });
    pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
    return std::vector<float>(y.host().begin(), y.host().end());
  };
  const auto want = run(pl::Runtime::open(pl::backend_kind::host));
  {
    parloop_test::scoped_env fast("PARLOOP_FAST_MATH", "1");
    const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::opencl);
    CHECK(static_cast<const ocl::backend&>(*rt.state()->backend).signature().options == "-cl-fast-relaxed-math");
    const auto got = run(rt);
    // Approximate functions: within a few ulps of IEEE's, not to rounding.
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(std::fabs(got[i] - want[i]) <= 1e-5f * std::fabs(want[i]) + 1e-6f);
  }
  {
    parloop_test::scoped_env off("PARLOOP_FAST_MATH", "0");
    CHECK(static_cast<const ocl::backend&>(*pl::Runtime::open(pl::backend_kind::opencl).state()->backend)
              .signature()
              .options.empty());
  }
  parloop_test::scoped_env wrong("PARLOOP_FAST_MATH", "on");
  CHECK_THROWS_WITH(pl::Runtime::open(pl::backend_kind::opencl),
                    Contains("PARLOOP_FAST_MATH is 'on': use 0 (IEEE arithmetic, the default) or 1"));
}

TEST_CASE("PARLOOP_DEVICE that no backend has is an error naming each backend's reason, not a run on the host",
          "[opencl][device]") {
  parloop_test::scoped_env no_backend("PARLOOP_BACKEND", nullptr);
  parloop_test::scoped_env no_cuda("PARLOOP_CUDA_DEVICE", nullptr);
  parloop_test::scoped_env no_opencl("PARLOOP_OPENCL_DEVICE", nullptr);
  {
    parloop_test::scoped_env named("PARLOOP_DEVICE", "no-device-is-called-this");
    CHECK_THROWS_WITH(pl::Runtime::open(), Contains("PARLOOP_DEVICE='no-device-is-called-this' names no device of any "
                                                    "backend") &&
                                               Contains("\n  opencl: ") && Contains("no device matches"));
    // A backend named outright is still opened, on its own terms.
    CHECK(pl::Runtime::open(pl::backend_kind::host).kind() == pl::backend_kind::host);
  }
  // Part of the OpenCL device's name: the best backend that has it.
  const ocl::device first = ocl::select_device(ocl::devices(), "", -1);
  parloop_test::scoped_env named("PARLOOP_DEVICE", first.name.c_str());
  const pl::Runtime rt = pl::Runtime::open();
  CHECK((rt.kind() == pl::backend_kind::opencl || rt.kind() == pl::backend_kind::cuda));
}

}  // namespace test_opencl
