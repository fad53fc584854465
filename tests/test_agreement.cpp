// SPDX-License-Identifier: MIT
// Kernels on which the host and an OpenCL device (PoCL in CI) once gave different answers or
// different errors: each runs on both, and both must agree, with the value the README states.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <parloop/backend/opencl/backend.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "random_mesh.hpp"

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_values;

namespace {

const pl::backend_kind backends[] = {pl::backend_kind::host, pl::backend_kind::opencl};

// What `run` leaves in a dat, on each backend.
template <class T>
std::vector<T> on(pl::backend_kind b, const std::function<std::vector<T>(pl::Runtime)>& run) {
  return run(pl::Runtime::open(b));
}

template <class T>
void agree(const std::function<std::vector<T>(pl::Runtime)>& run, const std::vector<T>& want) {
  for (const pl::backend_kind b : backends) {
    INFO(pl::backend_name(b));
    check_values<T>(on<T>(b, run), want);
  }
}

}  // namespace

TEST_CASE("a kernel or local may take any C identifier, built-in names of OpenCL and CUDA too", "[agreement][names]") {
  // Kernel names that are OpenCL built-ins or words of the language; locals that are macros
  // (M_PI, NULL, FLT_MAX), keywords or types of OpenCL C (read_only, image2d_t), and names that
  // look like parloop's own (atomics, as_vector, map2d, data3d).
  const std::vector<std::string> kernel_names = {"step", "dot", "clamp", "length", "mix", "sign", "round",
                                                 "select", "main", "read_write", "write_only", "kernel", "data0"};
  for (const std::string& name : kernel_names) {
    INFO(name);
    agree<double>(
        [&](pl::Runtime rt) {
          const pl::Set s(rt, 5);
          pl::Dat<double> x(s, std::vector<double>{1, 2, 3, 4, 5});
          auto k = pl::kernel(name, [](auto x) {
            auto a = pl::let("read_only", x * 2.0);
            auto b = pl::let("M_PI", a + 1.0);
            auto c = pl::let("NULL", b * b);
            auto d = pl::let("FLT_MAX", c - a);
            auto e = pl::let("image2d_t", d + 0.5);
            auto f = pl::let("atomics", e);
            auto g = pl::let("as_vector", f);
            auto h = pl::let("map2d", g);
            auto i = pl::let("data3d", h);
            auto j = pl::let("get_global_id", i);
            auto l = pl::let("threadIdx", j);
            auto m = pl::let("l_threadIdx", l);
            x = m;
          });
          pl::par_loop(k, s, x(pl::RW));
          const auto v = x.host();
          return std::vector<double>(v.begin(), v.end());
        },
        {// (2x + 1)^2 - 2x + 0.5
         7.5, 21.5, 43.5, 73.5, 111.5});
  }
}

TEST_CASE("pl::for_ reads its bound once, before the first pass", "[agreement][for_]") {
  // The body raises the local its bound is made of: the loop still runs the bound's first value
  // of times, on every backend (as a C++ for loop over a copy of the bound would).
  agree<std::int32_t>(
      [](pl::Runtime rt) {
        const pl::Set s(rt, 4);
        pl::Dat<std::int32_t> n(s, std::vector<std::int32_t>{1, 2, 3, 4}), out(s);
        auto k = pl::kernel("growing_bound", [](auto n, auto out) {
          auto m = pl::let("m", n + 0);
          auto passes = pl::let("passes", 0);
          pl::for_(0, m, [&](auto) {
            m += 1;
            passes += 1;
          });
          out = passes + m;
        });
        pl::par_loop(k, s, n(pl::READ), out(pl::WRITE));
        const auto v = out.host();
        return std::vector<std::int32_t>(v.begin(), v.end());
      },
      // n passes, then m = 2n.
      {3, 6, 9, 12});
}
