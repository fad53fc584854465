// SPDX-License-Identifier: MIT
// Backends are found once per process and safely from many threads: opening the host backend
// asks nothing of OpenCL, OpenCL lists its devices once however many threads open runtimes, and
// a device the environment names that does not exist is an error, not a quiet fall-back.
// This executable counts the program's calls to clGetPlatformIDs by defining it: calls from the
// program bind to this definition, which forwards to the ICD loader's.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <parloop/backend/opencl/cl.hpp>
#include <parloop/parloop.hpp>

#include "scoped_env.hpp"

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;

namespace {
std::atomic<int> platform_queries{0};

// Runs f on n threads at once and returns how many of its checks failed. Catch2's assertions
// are not thread-safe: the threads count, and the test asserts the count.
template <class F>
int failures_on_threads(int n, F&& f) {
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&] {
      const auto check = [&](bool ok) { failed.fetch_add(ok ? 0 : 1); };
      try {
        f(check);
      } catch (...) {
        failed.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  return failed;
}
}  // namespace

extern "C" CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint entries, cl_platform_id* platforms,
                                                            cl_uint* count) {
  platform_queries.fetch_add(1);
  using real_type = cl_int (*)(cl_uint, cl_platform_id*, cl_uint*);
  static const auto real = reinterpret_cast<real_type>(dlsym(RTLD_NEXT, "clGetPlatformIDs"));
  return real(entries, platforms, count);
}

// One test case: the steps must run in this order, the first before anything lists devices.
TEST_CASE("backends are found once, from any thread, and a missing device is an error", "[runtime][threads]") {
  scoped_env no_backend("PARLOOP_BACKEND", nullptr);
  scoped_env no_opencl_device("PARLOOP_OPENCL_DEVICE", nullptr);
  scoped_env no_device("PARLOOP_DEVICE", nullptr);

  // The host backend touches no device API.
  CHECK(failures_on_threads(4, [](const auto& check) {
          for (int i = 0; i < 50; ++i)
            check(pl::Runtime::open(pl::backend_kind::host).kind() == pl::backend_kind::host);
        }) == 0);
  CHECK(platform_queries == 0);

  // The first look lists the devices; threads opening runtimes at once list nothing again.
  const auto first = pl::backends();
  const int listed = platform_queries;
  CHECK(listed > 0);
  // The best: OpenCL on a GPU, else threads (PoCL's CPU device comes after them).
  const pl::backend_kind best =
      std::find_if(first.begin(), first.end(), [](const auto& s) { return s.available; })->kind;
  CHECK(failures_on_threads(4, [best](const auto& check) {
          for (int i = 0; i < 10; ++i) {
            check(pl::backends().size() == 4);
            check(pl::Runtime::open(pl::backend_kind::opencl).kind() == pl::backend_kind::opencl);
            check(pl::Runtime::open().kind() == best);
            check(pl::Runtime::open(pl::backend_kind::host).kind() == pl::backend_kind::host);
          }
        }) == 0);
  CHECK(platform_queries == listed);

  // A device the environment names and no platform has: every way of opening says so.
  {
    scoped_env missing("PARLOOP_OPENCL_DEVICE", "no-such-device");
    for (const auto& s : pl::backends()) {
      if (s.kind != pl::backend_kind::opencl) continue;
      CHECK_FALSE(s.available);
      CHECK(s.device_requested);
      CHECK_THAT(s.reason, Contains("no device matches 'no-such-device'"));
    }
    CHECK_THROWS_WITH(pl::Runtime::open(),
                      Contains("backend 'opencl' is not available") && Contains("no device matches 'no-such-device'"));
    CHECK_THROWS_WITH(pl::Runtime::open(pl::backend_kind::opencl), Contains("no device matches 'no-such-device'"));
    CHECK(pl::Runtime::open(pl::backend_kind::host).kind() == pl::backend_kind::host);
  }
  {
    scoped_env missing("PARLOOP_DEVICE", "9:9");
    CHECK_THROWS_WITH(pl::Runtime::open(), Contains("no device 9:9"));
  }
  CHECK(platform_queries == listed);
}
