// SPDX-License-Identifier: MIT
// Kernels on which the host and a device (OpenCL: PoCL in CI; CUDA with PARLOOP_TEST_BACKEND=cuda)
// once gave different answers or different errors: each runs on both, and both must agree, with
// the value the README states.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_agreement {

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_values;

namespace {

// The host and the device under test; read when a test runs, not while the program starts.
std::array<pl::backend_kind, 2> backends() { return {pl::backend_kind::host, parloop_test::device_backend()}; }

// What `run` leaves in a dat, on each backend.
template <class T>
std::vector<T> on(pl::backend_kind b, const std::function<std::vector<T>(pl::Runtime)>& run) {
  return run(pl::Runtime::open(b));
}

template <class T>
void agree(const std::function<std::vector<T>(pl::Runtime)>& run, const std::vector<T>& want) {
  for (const pl::backend_kind b : backends()) {
    INFO(pl::backend_name(b));
    check_values<T>(on<T>(b, run), want);
  }
}

}  // namespace

TEST_CASE("a kernel or local may take any C identifier, built-in names of OpenCL and CUDA too", "[agreement][names]") {
  // Kernel names that are OpenCL built-ins or words of the language; locals that are macros
  // (M_PI, NULL, FLT_MAX), keywords or types of OpenCL C (read_only, image2d_t), and names that
  // look like parloop's own (atomics, as_vector, map2d, data3d).
  const std::vector<std::string> kernel_names = {"step",       "dot",    "clamp",  "length", "mix",
                                                 "sign",       "round",  "select", "main",   "read_write",
                                                 "write_only", "kernel", "data0"};
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

TEST_CASE("a computed index out of range is an error on every backend, naming kernel, argument, bound and index",
          "[agreement][index]") {
  for (const pl::backend_kind b : backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set s(rt, 6, "s");
    pl::Dat<double, 3> q(s, std::vector<double>{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52});
    pl::Dat<std::int32_t> which(s, {0, 1, 2, 0, 1, 2}), slot(s, {0, 1, 1, 0, 1, 0});
    pl::Dat<double> out(s, "out");
    const pl::Map next(s, s, 2, {1, 2, 2, 3, 3, 4, 4, 5, 5, 0, 0, 1}, "next");
    auto pick = pl::kernel("pick", [](auto q, auto i, auto out) { out = q[i]; });
    // Through a whole map, a computed slot; its row's one component.
    auto neighbour = pl::kernel("neighbour", [](auto q, auto i, auto out) { out = q[i][2]; });

    pl::par_loop(pick, s, q(pl::READ), which(pl::READ), out(pl::WRITE));
    check_values<double>(out.host(), {0, 11, 22, 30, 41, 52});
    pl::par_loop(neighbour, s, q(pl::READ, next), slot(pl::READ), out(pl::WRITE));
    check_values<double>(out.host(), {12, 32, 42, 42, 2, 2});

    // Element 3 asks for component 5 of 3, then slot 5 of 2. The host throws in the loop; a
    // device finds it while the loop runs and reports it when the host next waits for it.
    which.host_view(pl::WRITE)[3] = 5;
    slot.host_view(pl::WRITE)[3] = 5;
    const auto pick_and_read = [&] {
      pl::par_loop(pick, s, q(pl::READ), which(pl::READ), out(pl::WRITE));
      (void)out.host();
    };
    CHECK_THROWS_AS(pick_and_read(), pl::trace_error);
    CHECK_THROWS_WITH(pick_and_read(), Contains("kernel 'pick': argument 0 has 3 components; index 5 is out of range"));
    const auto neighbour_and_read = [&] {
      pl::par_loop(neighbour, s, q(pl::READ, next), slot(pl::READ), out(pl::WRITE));
      (void)out.host();
    };
    CHECK_THROWS_WITH(neighbour_and_read(),
                      Contains("kernel 'neighbour': argument 0 has 2 map slots; index 5 is out of range"));
    // Negative too, and reported once: the next loops and reads run.
    which.host_view(pl::WRITE)[3] = -1;
    CHECK_THROWS_WITH(pick_and_read(), Contains("argument 0 has 3 components; index -1 is out of range"));
    which.host_view(pl::WRITE)[3] = 1;
    pl::par_loop(pick, s, q(pl::READ), which(pl::READ), out(pl::WRITE));
    check_values<double>(out.host(), {0, 11, 22, 31, 41, 52});
  }
}

TEST_CASE("PARLOOP_CHECK_INDICES=0 writes no index checks; another value is an error", "[agreement][index][compiled]") {
  {
    const parloop_test::scoped_env off("PARLOOP_CHECK_INDICES", "0");
    const pl::Runtime rt = parloop_test::device_runtime();
    const pl::Set s(rt, 4);
    pl::Dat<double, 2> q(s, {1, 2, 3, 4, 5, 6, 7, 8});
    pl::Dat<std::int32_t> which(s, {1, 0, 1, 0});
    pl::Dat<double> out(s);
    auto unchecked = pl::kernel("unchecked", [](auto q, auto i, auto out) { out = q[i]; });
    pl::par_loop(unchecked, s, q(pl::READ), which(pl::READ), out(pl::WRITE));
    check_values<double>(out.host(), {2, 3, 6, 7});
    CHECK(unchecked.compiles() == 1);
  }
  const parloop_test::scoped_env wrong("PARLOOP_CHECK_INDICES", "yes");
  CHECK_THROWS_WITH(parloop_test::device_runtime(), Contains("PARLOOP_CHECK_INDICES is 'yes'"));
}

TEST_CASE("settings::dump_source: each source a device runtime generates is written there",
          "[agreement][dump][compiled]") {
  const auto dir = std::filesystem::temp_directory_path() / ("parloop-dump-runtime-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  pl::settings settings = pl::settings::from_environment();
  settings.backend = parloop_test::device_backend();
  settings.dump_source = dir;
  const pl::Runtime rt = pl::Runtime::open(settings);
  const pl::Set s(rt, 4);
  pl::Dat<double> x(s, {1, 2, 3, 4});
  auto doubled = pl::kernel("dumped_doubled", [](auto x) { x = x * 2.0; });
  pl::par_loop(doubled, s, x(pl::RW));
  check_values<double>(x.host(), {2, 4, 6, 8});
  const std::vector<std::filesystem::path> files{std::filesystem::directory_iterator(dir), {}};
  REQUIRE(files.size() == 1);
  CHECK(files[0].filename().string().rfind("dumped_doubled-", 0) == 0);
  std::ifstream in(files[0]);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("dumped_doubled") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("after a loop fails, the validity flags say where the data is, and the next read is right",
          "[agreement][flags]") {
  for (const pl::backend_kind b : backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set s(rt, 6);
    pl::Dat<double, 2> q(s, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    pl::Dat<std::int32_t> which(s, {0, 1, 0, 7, 0, 1});
    pl::Dat<double> out(s, {-1, -1, -1, -1, -1, -1});
    auto pick = pl::kernel("pick_flags", [](auto q, auto i, auto out) { out = q[i]; });
    // The host stops at element 3, having written 0..2; a device runs every element (element 3
    // reads component 0 instead) and reports at the read.
    CHECK_THROWS_AS(
        [&] {
          pl::par_loop(pick, s, q(pl::READ), which(pl::READ), out(pl::WRITE));
          (void)out.host();
        }(),
        pl::trace_error);
    const pl::validity after = out.state().array.valid();
    // The threads backend runs six elements on one thread, as the host does.
    if (pl::runs_lambdas(b)) {
      CHECK(after == pl::validity::host);
      check_values<double>(out.host(), {0, 3, 4, -1, -1, -1});
    } else {
      // The device copy is the loop's result; the host copy is not current, and the next read
      // fetches it (the error was reported once).
      CHECK(after == pl::validity::device);
      check_values<double>(out.host(), {0, 3, 4, 6, 8, 11});
      CHECK(out.state().array.valid() == pl::validity::both);
    }
  }
}

TEST_CASE("INC, MIN and MAX into globals of several components agree", "[agreement][reduction]") {
  const int n = 5003;  // many work-groups, the last one partial
  const auto x0 = parloop_test::random_values<double>(static_cast<std::size_t>(n) * 3);
  const auto k0 = parloop_test::random_values<std::int32_t>(static_cast<std::size_t>(n) * 2);
  struct sums {
    std::vector<double> total;
    std::vector<std::int32_t> low, high;
  };
  const auto run = [&](pl::backend_kind b) {
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set s(rt, n);
    pl::Dat<double, 3> x(s, x0);
    pl::Dat<std::int32_t, 2> k(s, k0);
    pl::Global<double, 3> total(rt, {1.0, 2.0, 3.0});
    pl::Global<std::int32_t, 2> low(rt, {0, 0}), high(rt, {0, 0});
    auto reduce = pl::kernel("reduce_dims", [](auto x, auto k, auto total, auto low, auto high) {
      for (int c = 0; c < 3; ++c) total[c] += x[c] * (c + 1);
      for (int c = 0; c < 2; ++c) {
        low[c] = pl::min(low[c], k[c]);
        high[c] = pl::max(high[c], k[c] * (c + 1));
      }
    });
    // Twice: the second loop adds to the first's results, on the device as on the host.
    for (int i = 0; i < 2; ++i)
      pl::par_loop(reduce, s, x(pl::READ), k(pl::READ), total(pl::INC), low(pl::MIN), high(pl::MAX));
    const auto t = total.values();
    const auto l = low.values(), h = high.values();
    return sums{{t.begin(), t.end()}, {l.begin(), l.end()}, {h.begin(), h.end()}};
  };
  const sums want = run(pl::backend_kind::host);
  const sums got = run(parloop_test::device_backend());
  // Sums of 10006 values in another order: a relative tolerance of 1e-12 (check_values).
  check_values<double>(got.total, want.total);
  CHECK(got.low == want.low);
  CHECK(got.high == want.high);
  CHECK(want.low == std::vector<std::int32_t>{-50, -50});
}

}  // namespace test_agreement
