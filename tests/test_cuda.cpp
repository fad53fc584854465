// SPDX-License-Identifier: MIT
// The CUDA backend on a real GPU (label gpu; skipped, with the reason, where there is none):
// what it reports of itself, large meshes against the host, the index check, waiting, device
// memory, PTX through the driver's JIT, and fast math. The device-generic loops run on CUDA in
// test_device_loops_cuda and the others (PARLOOP_TEST_BACKEND=cuda).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <parloop/backend/cuda/backend.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_cuda {

namespace pl = parloop;
namespace cu = parloop::backend::cuda;
using Catch::Matchers::Contains;
using parloop_test::check_values;

namespace {

pl::Runtime gpu() { return pl::Runtime::open(pl::backend_kind::cuda); }
pl::Runtime host() { return pl::Runtime::open(pl::backend_kind::host); }
cu::backend& backend_of(const pl::Runtime& rt) { return static_cast<cu::backend&>(*rt.state()->backend); }

template <class T, int D>
std::vector<T> values_of(const pl::Dat<T, D>& d) {
  return std::vector<T>(d.host().begin(), d.host().end());
}

}  // namespace

TEST_CASE("CUDA is the best backend here and says which device it runs on", "[cuda]") {
  CHECK(pl::backends().front().kind == pl::backend_kind::cuda);
  CHECK(pl::backends().front().available);
  const pl::Runtime rt = pl::Runtime::open();
  CHECK(rt.kind() == pl::backend_kind::cuda);
  const cu::device& d = backend_of(rt).cuda_context().dev();
  CHECK_THAT(rt.device_name(), Contains("CUDA 0 ") && Contains(d.name) && Contains(d.arch()));
  const pl::cache::device_signature& s = backend_of(rt).signature();
  CHECK(s.backend == pl::backend_kind::cuda);
  CHECK(s.device == d.name);
  CHECK(s.architecture == d.arch());
  CHECK_THAT(s.compiler, Contains("NVRTC "));
  CHECK_THAT(s.options, Contains("--gpu-architecture=") && !Contains("--use_fast_math"));
  // The H200's sm_90 is known to this NVRTC: machine code, not PTX, and no driver in the key.
  if (d.major == 9 && d.minor == 0) {
    CHECK_FALSE(backend_of(rt).compile_target().ptx);
    CHECK(s.driver.empty());
  }
}

TEST_CASE("flux over 200000 edges: gathers through a map and INC by atomics", "[cuda]") {
  const int n_cells = 50000, n_edges = 200000;
  const auto ec = parloop_test::random_map(n_edges, n_cells, 2);
  const auto q0 = parloop_test::random_values<double>(n_cells * 4);
  const auto run = [&](const pl::Runtime& rt) {
    const pl::Set cells(rt, n_cells), edges(rt, n_edges);
    const pl::Map e2c(edges, cells, 2, ec);
    pl::Dat<double, 4> q(cells, q0), res(cells);
    auto flux = parloop_test::flux_kernel();
    pl::par_loop(flux, edges, q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));
    return values_of(res);
  };
  // Atomic adds in another order: equal up to rounding.
  check_values<double>(run(gpu()), run(host()));
}

TEST_CASE("reductions over 100003 edges: direct RW, global INC / MAX, MIN through a whole map", "[cuda]") {
  const int n_cells = 3000, n_edges = 100003;
  const auto ec = parloop_test::random_map(n_edges, n_cells, 3);
  const auto w0 = parloop_test::random_values<float>(n_edges * 2);
  struct result {
    std::vector<float> w;
    std::vector<std::int32_t> m;
    double total;
    float hi;
  };
  const auto run = [&](const pl::Runtime& rt, const pl::strategy& s) {
    const pl::Set cells(rt, n_cells), edges(rt, n_edges);
    const pl::Map e2c(edges, cells, 3, ec);
    pl::Dat<float, 2> w(edges, w0);
    pl::Dat<std::int32_t> m(cells, std::vector<std::int32_t>(n_cells, 1000));
    pl::Global<double> total(rt, 1.25);
    pl::Global<float> hi(rt, -1e30f);
    auto reduce = pl::kernel("reduce", [](auto w, auto total, auto hi, auto m) {
      total += w[0] * w[1];
      hi = pl::max(hi, w[0] - w[1]);
      pl::for_(0, m.size(), [&](auto j) { m[j][0] = pl::min(m[j][0], pl::cast<int>(w[1] * 100.0f) + j); });
      w[1] = w[0] * 2.0f;
    });
    pl::par_loop(reduce, edges, s, w(pl::RW), total(pl::INC), hi(pl::MAX), m(pl::MIN, e2c));
    return result{values_of(w), values_of(m), total.value(), hi.value()};
  };
  const result want = run(host(), pl::split_n_across_workgroups{});
  // Blocks of whole warps reduce by shuffles; 96 is three warps, 100 is not whole warps.
  for (const pl::strategy& s :
       {pl::strategy{pl::split_n_across_workgroups{256}}, pl::strategy{pl::grid_stride{96, 2}},
        pl::strategy{pl::chunked{100, 7}}, pl::strategy{pl::split_n_across_workgroups{1024}},
        pl::strategy{pl::vectors_across_workgroups{128, 2}}, pl::strategy{pl::vectors_across_workgroups{96, 4}}}) {
    INFO(pl::to_string(s));
    const result got = run(gpu(), s);
    check_values<float>(got.w, want.w);
    CHECK(got.m == want.m);
    parloop_test::check_value(got.total, want.total);
    CHECK(got.hi == want.hi);
  }
}

TEST_CASE("a computed index out of range is found on the GPU and thrown at the next wait, once", "[cuda]") {
  const int n = 10000;
  const pl::Runtime rt = gpu();
  const pl::Set points(rt, n);
  std::vector<double> q0(static_cast<std::size_t>(n) * 3);
  for (std::size_t i = 0; i < q0.size(); ++i) q0[i] = static_cast<double>(i);
  std::vector<std::int32_t> which0(n);
  for (int e = 0; e < n; ++e) which0[static_cast<std::size_t>(e)] = e % 3;
  which0[7777] = -4;  // the only element out of range
  pl::Dat<double, 3> q(points, q0);
  pl::Dat<std::int32_t> which(points, which0);
  pl::Dat<double> out(points, std::vector<double>(n, -1.0));
  auto pick = pl::kernel("pick", [](auto q, auto i, auto out) { out = q[i]; });
  pl::par_loop(pick, points, q(pl::READ), which(pl::READ), out(pl::WRITE));
  // synchronize waits for the loop and throws what it found, naming kernel, argument, bound, index.
  CHECK_THROWS_WITH(rt.synchronize(), Contains("kernel 'pick': argument 0 has 3 components; index -4 is out of range"));
  rt.synchronize();  // reported once
  const auto values = values_of(out);
  for (int e = 0; e < n; ++e) {
    // The bad element read component 0 instead; every other one its own.
    const int component = e == 7777 ? 0 : e % 3;
    if (values[static_cast<std::size_t>(e)] != q0[static_cast<std::size_t>(e) * 3 + component]) {
      FAIL("element " << e << ": " << values[static_cast<std::size_t>(e)]);
    }
  }
  // A read reports it too.
  pl::par_loop(pick, points, q(pl::READ), which(pl::READ), out(pl::WRITE));
  CHECK_THROWS_WITH(out.host(), Contains("kernel 'pick'"));
}

TEST_CASE("device memory on the GPU: copies, a copy riding along with the next download, a refusal", "[cuda][memory]") {
  const auto shared = std::make_shared<const cu::context>(cu::select_device(cu::devices(), "", -1));
  const cu::context& ctx = *shared;
  cu::memory mem(shared);
  std::vector<double> in(1000);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.5 * static_cast<double>(i);
  const std::size_t bytes = in.size() * sizeof(double);
  const auto a = mem.allocate(bytes);
  mem.upload(*a, in.data(), bytes);
  std::vector<double> out(in.size(), -1.0);
  mem.download(*a, out.data(), bytes);
  CHECK(out == in);

  const std::vector<std::int32_t> sent = {7, -3, 0, 12, 99};
  const auto record = mem.allocate(sent.size() * sizeof(std::int32_t));
  mem.upload(*record, sent.data(), sent.size() * sizeof(std::int32_t));
  std::vector<std::int32_t> seen(sent.size(), 0);
  mem.download_later(*record, seen.data(), seen.size() * sizeof(std::int32_t));
  mem.download(*a, out.data(), bytes);  // completes the staged copy too
  CHECK(seen == sent);
  mem.download_later(*record, seen.data(), seen.size() * sizeof(std::int32_t));
  std::fill(seen.begin(), seen.end(), 0);
  mem.wait();  // so does waiting
  CHECK(seen == sent);

  CHECK_THROWS_WITH(
      mem.allocate(ctx.dev().total_memory * 2),
      Contains("cannot allocate " + std::to_string(ctx.dev().total_memory * 2) + " bytes on " + ctx.dev().name));
}

TEST_CASE("PTX for an older architecture loads through the driver's JIT and gives the host's answers", "[cuda][ptx]") {
  const int n_cells = 517, n_edges = 2003;
  const auto ec = parloop_test::random_map(n_edges, n_cells, 2);
  const auto q0 = parloop_test::random_values<double>(n_cells * 4);
  const pl::Runtime h = host();
  const pl::Set hc(h, n_cells), he(h, n_edges);
  const pl::Map hm(he, hc, 2, ec);
  pl::Dat<double, 4> hq(hc, q0), hres(hc);
  auto flux = parloop_test::flux_kernel();
  pl::par_loop(flux, he, hq(pl::READ, hm, 0), hq(pl::READ, hm, 1), hres(pl::INC, hm, 0), hres(pl::INC, hm, 1));

  const pl::Runtime rt = gpu();
  cu::backend& b = backend_of(rt);
  const pl::Set cells(rt, n_cells), edges(rt, n_edges);
  const pl::Map e2c(edges, cells, 2, ec);
  pl::Dat<double, 4> q(cells, q0), res(cells);
  const auto ir = flux.traced(q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));
  // Written as the backend writes its kernels: q and res are kept by components there.
  const auto source =
      pl::codegen::make_source(*ir, b.dialect(), pl::split_n_across_workgroups{128}, b.codegen_options());
  REQUIRE(std::count_if(source.layout.begin(), source.layout.end(),
                        [](const pl::ir::kernel_buffer& buf) { return buf.role == pl::ir::buffer_role::stride; }) == 2);
  // sm_75 is the oldest architecture NVRTC 13 knows: its PTX runs on every newer device.
  const cu::compiled ptx = cu::build(source.code, cu::target{75, true, false});
  REQUIRE(ptx.format == pl::cache::binary_format::ptx);
  CHECK_THAT(std::string(ptx.binary.begin(), ptx.binary.end()), Contains(".entry pl_kernel_flux"));
  cu::launcher loaded(b.shared_context(), ptx.binary, ptx.format, ptx.entry, source.grid, source.block, source.layout);
  std::vector<const pl::detail::device_buffer*> buffers;
  std::vector<int> strides;
  for (const pl::ir::kernel_buffer& buf : loaded.layout()) {
    auto& array = buf.position == 0 ? q.state().array : res.state().array;
    if (buf.role == pl::ir::buffer_role::stride) {
      strides.push_back(static_cast<int>(array.component_stride()));
    } else if (buf.role == pl::ir::buffer_role::map) {
      buffers.push_back(&e2c.state().array.ensure_device(b));
    } else {
      buffers.push_back(&array.ensure_device(b));
      if (!buf.is_const) array.device_written();
    }
  }
  loaded.enqueue(0, n_edges, loaded.grid()(0, n_edges, b.facts()), buffers, strides);
  check_values<double>(res.host(), values_of(hres));
  // A record of the other format is refused by the backend's load.
  pl::cache::kernel_record record = loaded.record();
  CHECK(record.format == pl::cache::binary_format::ptx);
  CHECK_THROWS_WITH(b.load(record), Contains("is not a CUBIN for this device"));
}

TEST_CASE("PARLOOP_FAST_MATH=1 compiles with --use_fast_math, part of the device signature", "[cuda][options]") {
  const auto x0 = parloop_test::random_values<float>(4096);
  const auto run = [&](const pl::Runtime& rt) {
    const pl::Set s(rt, 4096);
    pl::Dat<float> x(s, x0), y(s);
    auto k = pl::kernel("fast", [](auto x, auto y) { y = pl::sqrt(pl::fabs(x)) / (1.0f + pl::exp(x)); });
    pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
    return values_of(y);
  };
  const auto want = run(host());
  {
    const parloop_test::scoped_env fast("PARLOOP_FAST_MATH", "1");
    const pl::Runtime rt = gpu();
    CHECK_THAT(backend_of(rt).signature().options, Contains("--use_fast_math"));
    const auto got = run(rt);
    // Approximate functions: a few ulps, not rounding.
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(std::fabs(got[i] - want[i]) <= 1e-5f * std::fabs(want[i]) + 1e-6f);
  }
  check_values<float>(run(gpu()), want);
  const parloop_test::scoped_env wrong("PARLOOP_FAST_MATH", "yes");
  CHECK_THROWS_WITH(gpu(), Contains("PARLOOP_FAST_MATH is 'yes'"));
}

}  // namespace test_cuda
