// SPDX-License-Identifier: MIT
// par_loop on a device backend -- OpenCL (PoCL in CI), or CUDA with PARLOOP_TEST_BACKEND=cuda --
// against the host backend, for every launch strategy: gathers and atomic INC through maps,
// direct RW, global reductions, MIN through a whole map, subranges and empty ranges, kernels
// from source; what a repeated loop does (nothing but launch), and what moves between host and
// device.
#include <catch2/catch.hpp>

#include <atomic>
#include <climits>
#include <fstream>
#include <cstdlib>
#include <cstdint>
#include <iterator>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cereal/archives/binary.hpp>
#include <fmt/format.h>

#include <parloop/cache/kernel_record.hpp>
#include <parloop/codegen/kernel_source.hpp>
#include <parloop/exec/device/device_backend.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "compile_all.hpp"
#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"
#include "scoped_env.hpp"
#include "temporary_folder.hpp"

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_value;
using parloop_test::check_values;

// Counts this thread's heap allocations while `counting` is set: the repeated-loop test
// asserts that a warm par_loop allocates nothing. Not under AddressSanitizer, which owns
// operator new itself (a replacement there would pair its allocations with our free).
#if defined(__SANITIZE_ADDRESS__)
#define PARLOOP_TEST_COUNTS_ALLOCATIONS 0
#else
#define PARLOOP_TEST_COUNTS_ALLOCATIONS 1
#endif

namespace {
std::atomic<long> allocations{0};
thread_local bool counting = false;
}  // namespace

#if PARLOOP_TEST_COUNTS_ALLOCATIONS
// Not inlined, and GCC's new/delete pairing check off in this file: GCC 13 pairs the inlined
// malloc with the inlined free and warns that they do not match, which is this file's intent.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
__attribute__((noinline)) void* operator new(std::size_t bytes) {
  if (counting) allocations.fetch_add(1);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  if (counting) allocations.fetch_add(1);
  return std::malloc(bytes == 0 ? 1 : bytes);
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

using parloop_test::scoped_env;

namespace {

const pl::strategy strategies[] = {pl::split_n_across_workgroups{64}, pl::grid_stride{32, 2}, pl::chunked{8, 16},
                                   pl::vectors_across_workgroups{32, 2}, pl::vectors_across_workgroups{16, 4}};

template <class T, int D>
std::vector<T> values_of(const pl::Dat<T, D>& d) {
  return std::vector<T>(d.host().begin(), d.host().end());
}

// The same mesh and data on two runtimes.
struct twin_mesh {
  explicit twin_mesh(pl::Runtime runtime, int n_cells = 517, int n_edges = 2003)
      : rt(std::move(runtime)),
        cells(rt, n_cells),
        edges(rt, n_edges),
        e2c(edges, cells, 2, edge_cells(n_edges, n_cells)) {}
  static const std::vector<pl::index_t>& edge_cells(int n_edges, int n_cells) {
    static const auto v = parloop_test::random_map(n_edges, n_cells, 2);
    (void)n_cells;
    REQUIRE(v.size() == static_cast<std::size_t>(n_edges) * 2);
    return v;
  }
  pl::Runtime rt;
  pl::Set cells, edges;
  pl::Map e2c;
};

// The residuals of the flux loop over the twin mesh from states q0, on the host: the reference.
std::vector<double> host_flux(const std::vector<double>& q0) {
  twin_mesh h(pl::Runtime::open(pl::backend_kind::host));
  pl::Dat<double, 4> q(h.cells, q0), res(h.cells);
  auto flux = parloop_test::flux_kernel();
  pl::par_loop(flux, h.edges, q(pl::READ, h.e2c, 0), q(pl::READ, h.e2c, 1), res(pl::INC, h.e2c, 0),
               res(pl::INC, h.e2c, 1));
  return values_of(res);
}

}  // namespace

// The device's dats kept by components (the default) and as the host keeps them.
const char* const layouts[] = {"soa", "aos"};

TEST_CASE("flux on a device gives the host's answers for every strategy and layout", "[device][loops]") {
  const auto q0 = parloop_test::random_values<double>(517 * 4);
  const auto want = host_flux(q0);
  auto flux = parloop_test::flux_kernel();
  for (const char* layout : layouts) {
    for (const pl::strategy& s : strategies) {
      INFO(layout << ", " << pl::to_string(s));
      const scoped_env env("PARLOOP_DAT_LAYOUT", layout);
      twin_mesh d(parloop_test::device_runtime());
      if (parloop_test::compiles_kernels()) CHECK(pl::to_string(d.rt.dat_layout()) == layout);
      pl::Dat<double, 4> q(d.cells, q0), res(d.cells);
      pl::par_loop(flux, d.edges, s, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0),
                   res(pl::INC, d.e2c, 1));
      check_values<double>(res.host(), want);
    }
  }
}

TEST_CASE("reductions and direct RW on a device, over whole sets, subranges and empty ranges", "[device][loops]") {
  auto k = pl::kernel("reduce", [](auto w, auto total, auto lo, auto hi, auto m) {
    total += w[0] * w[1];
    lo[0] = pl::min(lo[0], w[0]);
    lo[1] = pl::min(lo[1], w[1] - w[0]);
    hi = pl::max(hi, pl::cast<std::int64_t>(w[1] * 1000.0f));
    pl::for_(0, m.size(), [&](auto j) { m[j][0] = pl::min(m[j][0], pl::cast<int>(w[1] * 100.0f) + j); });
    w[1] = w[0] * 2.0f;
  });
  const int n_edges = 2003;
  const auto w0 = parloop_test::random_values<float>(n_edges * 2);
  const auto e2c3 = parloop_test::random_map(n_edges, 517, 3);
  for (const pl::range r : {pl::range{0, n_edges}, pl::range{100, 1337}, pl::range{700, 700}}) {
    INFO("range [" << r.start << ", " << r.end << ")");
    struct run {
      std::vector<float> w;
      std::vector<std::int32_t> m;
      double total;
      std::array<float, 2> lo;
      std::int64_t hi;
    };
    const auto go = [&](pl::Runtime rt, const pl::strategy* s) {
      const pl::Set cells(rt, 517), edges(rt, n_edges);
      const pl::Map map(edges, cells, 3, e2c3);
      pl::Dat<float, 2> w(edges, w0);
      pl::Dat<std::int32_t> m(cells, std::vector<std::int32_t>(517, 1000));
      pl::Global<double> total(rt, 1.5);
      pl::Global<float, 2> lo(rt, {0.25f, 0.5f});
      pl::Global<std::int64_t> hi(rt, -7);
      if (s != nullptr) {
        pl::par_loop(k, edges, *s, r, w(pl::RW), total(pl::INC), lo(pl::MIN), hi(pl::MAX), m(pl::MIN, map));
      } else {
        pl::par_loop(k, edges, r, w(pl::RW), total(pl::INC), lo(pl::MIN), hi(pl::MAX), m(pl::MIN, map));
      }
      return run{values_of(w), values_of(m), total.value(), lo.values(), hi.value()};
    };
    const run want = go(pl::Runtime::open(pl::backend_kind::host), nullptr);
    for (const pl::strategy& s : strategies) {
      for (const char* layout : layouts) {
        INFO(layout << ", " << pl::to_string(s));
        const scoped_env env("PARLOOP_DAT_LAYOUT", layout);
        const run got = go(parloop_test::device_runtime(), &s);
        check_values<float>(got.w, want.w);
        check_values<std::int32_t>(got.m, want.m);
        check_value(got.total, want.total);
        CHECK(got.lo == want.lo);
        CHECK(got.hi == want.hi);
      }
    }
  }
}

TEST_CASE("a repeated par_loop only launches", "[device][reuse][compiled]") {
  twin_mesh d(parloop_test::device_runtime());
  // The test suite's trace check traces the kernel at every loop; what is counted is the loop
  // without it.
  d.rt.set_trace_checks(pl::trace_checks::off);
  pl::Dat<double, 4> q(d.cells, parloop_test::random_values<double>(517 * 4)), res(d.cells);
  auto flux = parloop_test::flux_kernel();
  const auto loop = [&] {
    pl::par_loop(flux, d.edges, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0),
                 res(pl::INC, d.e2c, 1));
  };
  loop();
  counting = true;
  for (int i = 1; i < 1000; ++i) loop();
  counting = false;
  if (PARLOOP_TEST_COUNTS_ALLOCATIONS) {
    CHECK(allocations.load() == 0);
  } else {
    WARN("allocations are not counted under AddressSanitizer; the plain build checks them");
  }
  CHECK(flux.traces() == 1);
  CHECK(flux.compiles() == 1);
  CHECK(flux.launches() == 1000);
  // q, res and the map went up once each, and where the runtime colours (a CPU device's
  // default), the colours' element order; nothing came back.
  CHECK(d.rt.transfers().to_device == (d.rt.default_conflicts() == pl::conflicts::atomics ? 3u : 4u));
  CHECK(d.rt.transfers().to_host == 0);

  // Another strategy is another compile; the same again is not.
  pl::par_loop(flux, d.edges, pl::chunked{4, 4}, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0),
               res(pl::INC, d.e2c, 1));
  pl::par_loop(flux, d.edges, pl::chunked{4, 4}, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0),
               res(pl::INC, d.e2c, 1));
  CHECK(flux.traces() == 1);
  CHECK(flux.compiles() == 2);
  CHECK(flux.launches() == 1002);

  // A loop with a global reduction, too: its scratch is kept, and nothing is read back.
  pl::Global<double> total(d.rt, 0.0);
  auto sum = pl::kernel("sum_first", [](auto q, auto total) { total += q[0]; });
  pl::par_loop(sum, d.cells, q(pl::READ), total(pl::INC));
  const auto before = d.rt.transfers();
  counting = true;
  for (int i = 1; i < 1000; ++i) pl::par_loop(sum, d.cells, q(pl::READ), total(pl::INC));
  counting = false;
  if (PARLOOP_TEST_COUNTS_ALLOCATIONS) CHECK(allocations.load() == 0);
  CHECK(d.rt.transfers().to_host == before.to_host);
  CHECK(d.rt.transfers().to_device == before.to_device);
}

TEST_CASE("data moves between host and device only when stale", "[device][transfers][compiled]") {
  twin_mesh d(parloop_test::device_runtime());
  const auto& t = d.rt.transfers();
  pl::Dat<double> x(d.cells, parloop_test::random_values<double>(517)), y(d.edges);
  auto gather = pl::kernel("gather", [](auto a, auto b, auto y) { y = a - b; });
  auto scale = pl::kernel("scale", [](auto x) { x *= 2.0; });

  pl::par_loop(gather, d.edges, x(pl::READ, d.e2c, 0), x(pl::READ, d.e2c, 1), y(pl::WRITE));
  CHECK(t.to_device == 3);  // x, the map, y (WRITE keeps unwritten components, so y goes up too)
  CHECK(t.to_host == 0);
  pl::par_loop(scale, d.cells, x(pl::RW));
  pl::par_loop(gather, d.edges, x(pl::READ, d.e2c, 0), x(pl::READ, d.e2c, 1), y(pl::WRITE));
  CHECK(t.to_device == 3);
  CHECK(t.to_host == 0);

  // Reading on the host brings y back once.
  const double y0 = y.host()[0];
  CHECK(y.host()[0] == y0);
  CHECK(t.to_host == 1);
  CHECK(t.to_host_bytes == 2003 * sizeof(double));

  // Writing on the host sends x up again before the next loop, once.
  x.host_view(pl::RW)[0] += 1.0;
  CHECK(t.to_host == 2);  // x was only current on the device
  pl::par_loop(scale, d.cells, x(pl::RW));
  pl::par_loop(scale, d.cells, x(pl::RW));
  CHECK(t.to_device == 4);

  // A WRITE view is for writing every value: the device's copy is not fetched first.
  const auto fresh = x.host_view(pl::WRITE);
  for (double& v : fresh) v = 1.0;
  CHECK(t.to_host == 2);
  pl::par_loop(scale, d.cells, x(pl::RW));
  CHECK(t.to_device == 5);
  CHECK(x.host()[516] == 2.0);
}

TEST_CASE("a kernel from C source runs on a device", "[device][source][compiled]") {
  twin_mesh d(parloop_test::device_runtime());
  const auto q0 = parloop_test::random_values<double>(517 * 4);
  pl::Dat<double, 4> q(d.cells, q0), res(d.cells);
  pl::Global<double> total(d.rt, 0.0);
  const auto k = parloop_test::smooth_source_kernel();
  pl::par_loop(k, d.edges, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0), total(pl::INC));

  const auto& ec = twin_mesh::edge_cells(2003, 517);
  std::vector<double> want(517 * 4, 0.0);
  double want_total = 0.0;
  for (int e = 0; e < 2003; ++e) {
    for (int c = 0; c < 4; ++c) {
      want[ec[2 * e] * 4 + c] += 0.5 * (q0[ec[2 * e] * 4 + c] + q0[ec[2 * e + 1] * 4 + c]);
      want_total += q0[ec[2 * e] * 4 + c];
    }
  }
  check_values<double>(res.host(), want);
  check_value(total.value(), want_total);

  parloop_test::expect_compile_failure("broken_loop");
  const auto broken = pl::kernel_from_source("broken_loop", "void broken_loop(double* x) { x[0] = ; }");
  CHECK_THROWS_AS(pl::par_loop(broken, d.cells, res(pl::RW)), pl::compile_error);
}

TEST_CASE("a kernel from C source may take a name OpenCL C or CUDA has for itself", "[device][source][compiled]") {
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::Set s(rt, 100);
  std::vector<double> x0(100);
  for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = 0.25 * static_cast<double>(i);
  // Keywords, built-ins and macros of OpenCL C and CUDA; each function doubles and adds its position.
  const char* const names[] = {"kernel", "global",  "local", "half",      "M_PI",
                               "NULL",   "barrier", "sqrt",  "threadIdx", "new"};
  for (std::size_t n = 0; n < std::size(names); ++n) {
    INFO(names[n]);
    const std::string name = names[n];
    pl::Dat<double> x(s, x0);
    const auto k =
        pl::kernel_from_source(name, fmt::format("void {0}(double* x) {{ x[0] = 2.0 * x[0] + {1}.0; }}", name, n));
    pl::par_loop(k, s, x(pl::RW));
    std::vector<double> want(x0);
    for (double& v : want) v = 2.0 * v + static_cast<double>(n);
    check_values<double>(x.host(), want);
  }
}

TEST_CASE("a kernel from source with #include: the disk cache sees the header's bytes",
          "[device][source][disk][compiled]") {
  const parloop_test::temporary_folder headers, cache;
  const parloop_test::scoped_env on("PARLOOP_CACHE", "on"), where("PARLOOP_CACHE_DIR", cache.path.c_str());
  const auto write_header = [&](const char* scale) {
    std::ofstream(headers.path / "constants.h") << "#pragma once\n#define SCALE " << scale << "\n";
  };
  const std::string source =
      "#include \"constants.h\"\n#include \"constants.h\"\nvoid scaled(double* x) { x[0] *= SCALE; }\n";
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::Set s(rt, 64);
  const std::vector<double> x0 = parloop_test::random_values<double>(64);
  // Each run as a new program has it: a new kernel, the header read as it is then.
  const auto run = [&](double scale) {
    const auto k = pl::kernel_from_source("scaled", source, pl::include_path{headers.path});
    pl::Dat<double> x(s, x0);
    pl::par_loop(k, s, x(pl::RW));
    std::vector<double> want(x0);
    for (double& v : want) v *= scale;
    check_values<double>(x.host(), want);
    return k.compiles();
  };
  write_header("2.0");
  CHECK(run(2.0) == 1);
  CHECK(run(2.0) == 0);  // the same header: from disk
  write_header("3.0");
  CHECK(run(3.0) == 1);  // an edited header: another key, compiled
  // Without the folders named, an #include is refused, naming the file.
  CHECK_THROWS_WITH(pl::kernel_from_source("scaled", source),
                    Contains("includes \"constants.h\", which no folder is named to find"));
}

TEST_CASE("a captured value that changed between loops is refused, on the host and on a device", "[device][check]") {
  for (const pl::Runtime& rt : {pl::Runtime::open(pl::backend_kind::host), parloop_test::device_runtime()}) {
    INFO(pl::backend_name(rt.kind()));
    CHECK(rt.trace_checks() == pl::trace_checks::every_call);  // the test suite sets PARLOOP_CHECK_TRACES=1
    const pl::Set s(rt, 10);
    pl::Dat<double> x(s, std::vector<double>(10, 1.0)), y(s);
    double scale = 1.0;
    const auto k = pl::kernel("scaled_by_reference", [&scale](auto x, auto y) { y = x * scale; });
    pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
    CHECK(y.host()[0] == 1.0);
    scale = 2.0;
    CHECK_THROWS_WITH(pl::par_loop(k, s, x(pl::READ), y(pl::WRITE)),
                      Contains("par_loop 'scaled_by_reference': the kernel traces differently than at its first loop"));
    scale = 1.0;  // as it was: the same trace, accepted
    CHECK_NOTHROW(pl::par_loop(k, s, x(pl::READ), y(pl::WRITE)));
  }
}

TEST_CASE("by default a changed capture is refused within the sampled schedule", "[device][check]") {
  {
    parloop_test::scoped_env unset("PARLOOP_CHECK_TRACES", nullptr);
    CHECK(pl::Runtime::open(pl::backend_kind::host).trace_checks() == pl::trace_checks::sampled);
  }
  for (pl::Runtime rt : {pl::Runtime::open(pl::backend_kind::host), parloop_test::device_runtime()}) {
    INFO(pl::backend_name(rt.kind()));
    rt.set_trace_checks(pl::trace_checks::sampled);
    const pl::Set s(rt, 10);
    pl::Dat<double> x(s, std::vector<double>(10, 1.0)), y(s);
    double scale = 1.0;
    const auto k = pl::kernel("scaled_sampled", [&scale](auto x, auto y) { y = x * scale; });
    const auto loop = [&] { pl::par_loop(k, s, x(pl::READ), y(pl::WRITE)); };
    // Within the first calls every one is checked.
    for (int call = 0; call < 3; ++call) loop();
    scale = 2.0;
    CHECK_THROWS_WITH(loop(), Contains("traces differently") && !Contains("calls after the last check"));
    scale = 1.0;
    // Then one call in 128 (counted from the first, refused ones included): a change after call 20
    // runs until call 129, which says what may have happened in between.
    for (int call = 4; call < 20; ++call) loop();
    scale = 3.0;
    for (int call = 20; call < 128; ++call) CHECK_NOTHROW(loop());
    CHECK_THROWS_WITH(loop(), Contains("Checked at call 129 of these arguments, 128 calls after the last check"));
  }
}

TEST_CASE("every strategy covers every element of a range exactly once, up to INT_MAX", "[device][strategy]") {
  const pl::Runtime rt = parloop_test::device_runtime();
  const int n = 100003;
  const pl::Set points(rt, n);
  const pl::Set huge(rt, INT_MAX);
  auto visit = pl::kernel("visit", [](auto v, auto count) {
    v += 1;
    count += 1;
  });
  auto tally = pl::kernel("tally", [](auto count) { count += 1; });
  const pl::strategy all[] = {pl::split_n_across_workgroups{64},
                              pl::split_n_across_workgroups{256},
                              pl::grid_stride{32, 2},
                              pl::grid_stride{256, 1},
                              pl::chunked{8, 16},
                              pl::chunked{1, 1},
                              pl::vectors_across_workgroups{64, 2},
                              pl::vectors_across_workgroups{256, 4}};
  std::uniform_int_distribution<int> pick(0, n);
  for (const pl::strategy& s : all) {
    INFO(pl::to_string(s));
    for (int trial = 0; trial < 4; ++trial) {
      int a = pick(parloop_test::rng()), b = pick(parloop_test::rng());
      if (trial == 0) b = a;  // an empty range
      if (a > b) std::swap(a, b);
      pl::Dat<std::int32_t> visits(points);
      pl::Global<std::int64_t> count(rt, 0);
      pl::par_loop(visit, points, s, pl::range{a, b}, visits(pl::INC), count(pl::INC));
      std::size_t wrong = 0;
      const auto v = visits.host();
      for (int i = 0; i < n; ++i) wrong += v[static_cast<std::size_t>(i)] != (i >= a && i < b ? 1 : 0);
      CHECK(wrong == 0);
      CHECK(count.value() == b - a);
    }
    // Near the end of the int range, where 32-bit index arithmetic would overflow.
    for (const pl::range r : {pl::range{INT_MAX - 100000, INT_MAX}, pl::range{INT_MAX - 1, INT_MAX}}) {
      pl::Global<std::int64_t> count(rt, 0);
      pl::par_loop(tally, huge, s, r, count(pl::INC));
      CHECK(count.value() == std::int64_t{r.end} - r.start);
    }
  }
}

TEST_CASE("a launch of more than INT_MAX work-items counts each element once", "[device][strategy][compiled]") {
  // Blocks of 250 over the whole int range launch 2147483750 work-items: those past INT_MAX
  // must find themselves past the end, not wrap around to negative indices. (A block of 1000 is
  // more than NVIDIA's OpenCL runs this kernel with: 256.) The generated code's indices: the
  // threads backend, which has no work-items, would only count to INT_MAX (95 s under ASan).
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::Set huge(rt, INT_MAX);
  pl::Global<std::int64_t> count(rt, 0);
  auto tally = pl::kernel("tally_all", [](auto count) { count += 1; });
  pl::par_loop(tally, huge, pl::split_n_across_workgroups{250}, count(pl::INC));
  CHECK(count.value() == INT_MAX);
}

TEST_CASE("stress: every element increments the same target; a mesh of a million edges", "[device][stress]") {
  const pl::Runtime rt = parloop_test::device_runtime();
  {
    const int n = 200000;
    const pl::Set edges(rt, n), one(rt, 1);
    const pl::Map to_one(edges, one, 1, std::vector<pl::index_t>(n, 0));
    pl::Dat<std::int32_t> hits(one);
    pl::Dat<double> sum(one);
    auto k = pl::kernel("pile_up", [](auto h, auto s) {
      h += 1;
      s += 0.5;
    });
    pl::par_loop(k, edges, hits(pl::INC, to_one, 0), sum(pl::INC, to_one, 0));
    CHECK(hits.host()[0] == n);
    CHECK(sum.host()[0] == 0.5 * n);  // exact: every partial sum of halves is representable
  }
  {
    const int n_cells = 300000, n_edges = 1000000;
    const auto ec = parloop_test::random_map(n_edges, n_cells, 2);
    const auto q0 = parloop_test::random_values<double>(n_cells * 4);
    const auto run = [&](pl::Runtime r) {
      const pl::Set cells(r, n_cells), edges(r, n_edges);
      const pl::Map e2c(edges, cells, 2, ec);
      pl::Dat<double, 4> q(cells, q0), res(cells);
      auto flux = parloop_test::flux_kernel();
      pl::par_loop(flux, edges, q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));
      return values_of(res);
    };
    check_values<double>(run(rt), run(pl::Runtime::open(pl::backend_kind::host)));
  }
}

TEST_CASE("threads launch one kernel on their own runtimes", "[device][threads]") {
  auto flux = parloop_test::flux_kernel();
  const auto q0 = parloop_test::random_values<double>(517 * 4);
  const auto reference = host_flux(q0);
  constexpr int n_threads = 4, n_loops = 50;
  std::vector<std::vector<double>> results(n_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t) {
    threads.emplace_back([&, t] {
      twin_mesh d(parloop_test::device_runtime());
      pl::Dat<double, 4> q(d.cells, q0), res(d.cells);
      for (int i = 0; i < n_loops; ++i) {
        pl::par_loop(flux, d.edges, q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), res(pl::INC, d.e2c, 0),
                     res(pl::INC, d.e2c, 1));
      }
      results[static_cast<std::size_t>(t)] = values_of(res);
    });
  }
  for (auto& t : threads) t.join();
  std::vector<double> want(reference);
  for (double& v : want) v *= n_loops;
  for (const auto& r : results) check_values<double>(r, want);
  CHECK(flux.traces() == 1);
  if (parloop_test::compiles_kernels()) {
    CHECK(flux.compiles() == n_threads);  // one per runtime: each has its own device context
    CHECK(flux.launches() == n_threads * n_loops);
  } else {
    CHECK(flux.compiles() == 0);
  }
}

TEST_CASE("a global set on the host between loops reaches each loop with its value", "[device][transfers][compiled]") {
  // 8 bytes a value: 1000 values go round the 4 KB of staged uploads twice.
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::Set cells(rt, 300);
  pl::Dat<double, 3> x(cells);
  pl::Global<double> g(rt, 0.0);
  auto add = pl::kernel("add_global", [](auto x, auto g) {
    x[0] += g;
    x[2] += g * g;
  });
  double sum = 0.0, squares = 0.0;
  for (int i = 0; i < 1000; ++i) {
    g.set_value(static_cast<double>(i));
    pl::par_loop(add, cells, x(pl::RW), g(pl::READ));
    sum += i;
    squares += static_cast<double>(i) * i;
  }
  CHECK(rt.transfers().to_device == 1001);  // x once, g each time
  CHECK(rt.transfers().to_host == 0);
  const auto v = x.host();
  for (int e = 0; e < 300; ++e) {
    CHECK(v[static_cast<std::size_t>(e) * 3] == sum);
    CHECK(v[static_cast<std::size_t>(e) * 3 + 1] == 0.0);
    CHECK(v[static_cast<std::size_t>(e) * 3 + 2] == squares);
  }
}

TEST_CASE("reductions finish on the device: loops read nothing back, value() reads once",
          "[device][reductions][compiled]") {
  twin_mesh d(parloop_test::device_runtime());
  const auto& t = d.rt.transfers();
  const auto x0 = parloop_test::random_values<double>(2003);
  pl::Dat<double> x(d.edges, x0);
  pl::Global<double> sum(d.rt, 0.5);
  pl::Global<double> lo(d.rt, 1e9);
  pl::Global<std::int32_t> count(d.rt, 3);
  auto k = pl::kernel("accumulate", [](auto x, auto sum, auto lo, auto count) {
    sum += x;
    lo = pl::min(lo, x);
    count += 1;
  });
  constexpr int loops = 50;
  for (int i = 0; i < loops; ++i) pl::par_loop(k, d.edges, x(pl::READ), sum(pl::INC), lo(pl::MIN), count(pl::INC));
  CHECK(t.to_host == 0);
  CHECK(t.to_device == 4);  // x and the three globals, once each

  double want_sum = 0.0, want_lo = 1e9;
  for (const double v : x0) {
    want_sum += v;
    want_lo = std::min(want_lo, v);
  }
  check_value(sum.value(), 0.5 + loops * want_sum);
  CHECK(t.to_host == 1);
  check_value(sum.value(), 0.5 + loops * want_sum);
  CHECK(t.to_host == 1);
  CHECK(lo.value() == want_lo);
  CHECK(count.value() == 3 + loops * 2003);
  CHECK(t.to_host == 3);

  // A value set on the host goes to the device once, before the next loop.
  count.set_value(7);
  pl::par_loop(k, d.edges, x(pl::READ), sum(pl::INC), lo(pl::MIN), count(pl::INC));
  pl::par_loop(k, d.edges, pl::range{5, 10}, x(pl::READ), sum(pl::INC), lo(pl::MIN), count(pl::INC));
  CHECK(t.to_device == 5);
  CHECK(count.value() == 7 + 2003 + 5);

  // Many groups: the last one sums thousands of partials, for each strategy in turn.
  const pl::Set many(d.rt, 1000003);
  pl::Global<std::int64_t> n(d.rt, 0);
  auto tally = pl::kernel("tally_many", [](auto n) { n += 1; });
  for (const pl::strategy& s : strategies) {
    pl::par_loop(tally, many, s, n(pl::INC));
  }
  CHECK(n.value() == static_cast<std::int64_t>(std::size(strategies)) * 1000003);
}

namespace {

// Binds each buffer of a launcher's layout to the arrays of the loop's arguments (by position)
// and enqueues it over [0, n), as exec's launch does.
void run_launcher(pl::detail::launcher& l, pl::detail::device_backend& backend, int n,
                  const std::vector<pl::detail::mirrored_array*>& data, pl::detail::mirrored_array* map) {
  std::vector<const pl::detail::device_buffer*> buffers;
  std::vector<int> strides;
  for (const auto& b : l.layout()) {
    REQUIRE(b.role != pl::ir::buffer_role::partials);
    auto& array = b.role == pl::ir::buffer_role::map ? *map : *data[static_cast<std::size_t>(b.position)];
    if (b.role == pl::ir::buffer_role::stride) {
      strides.push_back(static_cast<int>(array.component_stride()));
      continue;
    }
    buffers.push_back(&array.ensure_device(backend));
    if (!b.is_const) array.device_written();
  }
  l.enqueue(0, n, l.grid()(0, n, backend.facts()), buffers, strides);
}

}  // namespace

TEST_CASE("a kernel record round-trips through cereal and loads into a launcher with the host's answers",
          "[device][record][compiled]") {
  const auto q0 = parloop_test::random_values<double>(517 * 4);
  const auto want = host_flux(q0);
  auto flux = parloop_test::flux_kernel();

  twin_mesh d(parloop_test::device_runtime());
  auto& backend = *d.rt.state()->backend;
  pl::Dat<double, 4> q(d.cells, q0), traced_res(d.cells);
  const auto ir = flux.traced(q(pl::READ, d.e2c, 0), q(pl::READ, d.e2c, 1), traced_res(pl::INC, d.e2c, 0),
                              traced_res(pl::INC, d.e2c, 1));
  for (const pl::strategy& s : strategies) {
    INFO(pl::to_string(s));
    const auto source = pl::codegen::make_source(*ir, backend.dialect(), s, backend.codegen_options());
    const auto built = backend.build(source);
    const pl::cache::kernel_record record = built->record();
    CHECK(record.backend == parloop_test::device_backend());
    CHECK(record.entry == "pl_kernel_flux");
    CHECK_FALSE(record.binary.empty());
    CHECK(record.grid == source.grid);
    CHECK(record.block == pl::detail::block_size(s));
    CHECK(record.layout == source.layout);

    std::stringstream stored;
    {
      cereal::BinaryOutputArchive out(stored);
      out(record);
    }
    const std::string bytes = stored.str();
    pl::cache::kernel_record back;
    {
      std::stringstream in_bytes(bytes);
      cereal::BinaryInputArchive in(in_bytes);
      in(back);
    }
    CHECK(back == record);

    // The loaded kernel, bound by its layout, gives the host's answers.
    pl::Dat<double, 4> res(d.cells);
    const auto loaded = backend.load(back);
    run_launcher(*loaded, backend, 2003, {&q.state().array, nullptr, &res.state().array}, &d.e2c.state().array);
    check_values<double>(res.host(), want);

    // A truncated record, or one with a block no device has, is refused while loading.
    std::stringstream truncated(bytes.substr(0, bytes.size() / 2));
    cereal::BinaryInputArchive cut(truncated);
    pl::cache::kernel_record damaged;
    CHECK_THROWS(cut(damaged));
    pl::cache::kernel_record odd = record;
    odd.block = 0;
    std::stringstream odd_bytes;
    {
      cereal::BinaryOutputArchive out(odd_bytes);
      out(odd);
    }
    cereal::BinaryInputArchive odd_in(odd_bytes);
    CHECK_THROWS_WITH(odd_in(damaged), Contains("damaged"));
  }
  // A record of another kind of binary is not loaded.
  pl::cache::kernel_record other =
      backend.build(pl::codegen::make_source(*ir, backend.dialect(), strategies[0], backend.codegen_options()))
          ->record();
  const bool on_opencl = parloop_test::device_backend() == pl::backend_kind::opencl;
  other.format = on_opencl ? pl::cache::binary_format::cubin : pl::cache::binary_format::opencl_program;
  CHECK_THROWS_WITH(backend.load(other), Contains(on_opencl ? "is not an OpenCL program" : "for this device"));
}
