// SPDX-License-Identifier: MIT
// On a real GPU: generated CUDA kernels, compiled by NVRTC for the device's own architecture,
// load, launch and give the host backend's answers. Skipped (exit 77) where there is no
// NVIDIA driver or GPU. Until the CUDA backend launches loops itself, this test binds the
// buffers in codegen::buffers() order and launches through the driver API directly.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <parloop/backend/cuda/compile.hpp>
#include <parloop/backend/cuda/driver.hpp>
#include <parloop/backend/cuda/memory.hpp>
#include <parloop/codegen/generate.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"

namespace pl = parloop;
namespace cg = parloop::codegen;
namespace cu = parloop::backend::cuda;
using Catch::Matchers::Contains;

namespace {

CUdevice gpu = 0;
std::string gpu_arch;

using bytes = std::vector<unsigned char>;

template <class T>
bytes as_bytes(const std::vector<T>& v) {
  bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T>
std::vector<T> from_bytes(const bytes& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

constexpr int block_size = 256;

int work_items(int n) { return (n + block_size - 1) / block_size * block_size; }

// Compiles the kernel for this GPU, launches it over [0, n) with `buffers` bound in
// codegen::buffers() order, and returns the buffers' contents afterwards.
std::vector<bytes> launch(const pl::ir::kernel& k, int n, std::vector<bytes> buffers) {
  const cu::driver& d = cu::driver::get();
  REQUIRE(buffers.size() == cg::buffers(k).size());
  const auto binary = cu::build(cg::generate(k, cg::dialect_kind::cuda), gpu_arch);
  CUmodule module = nullptr;
  d.check(d.module_load_data(&module, binary.binary.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  d.check(d.module_get_function(&function, module, binary.entry.c_str()), "cuModuleGetFunction");

  std::vector<CUdeviceptr> device(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    d.check(d.mem_alloc(&device[i], std::max<std::size_t>(buffers[i].size(), 1)), "cuMemAlloc");
    d.check(d.memcpy_htod(device[i], buffers[i].data(), buffers[i].size()), "cuMemcpyHtoD");
  }
  int start = 0, end = n;
  std::vector<void*> params = {&start, &end};
  for (auto& p : device) params.push_back(&p);
  const unsigned blocks = static_cast<unsigned>(work_items(n) / block_size);
  d.check(d.launch_kernel(function, blocks, 1, 1, block_size, 1, 1, 0, nullptr, params.data(), nullptr),
          "cuLaunchKernel");
  d.check(d.ctx_synchronize(), "cuCtxSynchronize");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    d.check(d.memcpy_dtoh(buffers[i].data(), device[i], buffers[i].size()), "cuMemcpyDtoH");
    d.check(d.mem_free(device[i]), "cuMemFree");
  }
  d.check(d.module_unload(module), "cuModuleUnload");
  return buffers;
}

pl::Runtime host() { return pl::Runtime::open(pl::backend_kind::host); }

}  // namespace

TEST_CASE("flux on the GPU: gathers through a map and INC by atomics", "[gpu]") {
  const int n_cells = 50000, n_edges = 200000;
  const pl::Runtime rt = host();
  const pl::Set cells(rt, n_cells), edges(rt, n_edges);
  const auto ec = parloop_test::random_map(n_edges, n_cells, 2);
  const pl::Map e2c(edges, cells, 2, ec);
  const auto q0 = parloop_test::random_values<double>(n_cells * 4);
  pl::Dat<double, 4> q(cells, q0), res(cells);
  auto flux = parloop_test::flux_kernel();
  pl::par_loop(flux, edges, q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));
  const auto ir = flux.traced(q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));

  const auto out = launch(*ir, n_edges, {as_bytes(q0), as_bytes(std::vector<double>(n_cells * 4, 0.0)), as_bytes(ec)});
  // Atomic adds in another order: equal up to rounding.
  parloop_test::check_values<double>(from_bytes<double>(out[1]), std::vector<double>(res.host().begin(), res.host().end()));
}

TEST_CASE("reductions on the GPU: direct RW, global INC / MAX per block, MIN through a whole map", "[gpu]") {
  const int n_cells = 3000, n_edges = 100003;
  const pl::Runtime rt = host();
  const pl::Set cells(rt, n_cells), edges(rt, n_edges);
  const auto ec = parloop_test::random_map(n_edges, n_cells, 3);
  const pl::Map e2c(edges, cells, 3, ec);
  const auto w0 = parloop_test::random_values<float>(n_edges * 2);
  std::vector<std::int32_t> m0(n_cells, 1000);
  pl::Dat<float, 2> w(edges, w0);
  pl::Dat<std::int32_t> m(cells, m0);
  pl::Global<double> total(rt, 0.0);
  pl::Global<float> hi(rt, -1e30f);
  // total starts at 0 on the host and at total0 on the GPU: the device adds to its own value.
  auto reduce = pl::kernel("reduce", [](auto w, auto total, auto hi, auto m) {
    total += w[0] * w[1];
    hi = pl::max(hi, w[0] - w[1]);
    pl::for_(0, m.size(), [&](auto j) { m[j][0] = pl::min(m[j][0], pl::cast<int>(w[1] * 100.0f) + j); });
    w[1] = w[0] * 2.0f;
  });
  pl::par_loop(reduce, edges, w(pl::RW), total(pl::INC), hi(pl::MAX), m(pl::MIN, e2c));
  const auto ir = reduce.traced(w(pl::RW), total(pl::INC), hi(pl::MAX), m(pl::MIN, e2c));

  // Buffers: w, total, hi, m (data0-3), the map, one partial per block of total and of hi, the
  // counter of blocks done, which the last block resets, and the index checks' record (the
  // slot j is computed).
  const int blocks = work_items(n_edges) / block_size;
  const double total0 = 1.25;
  const float hi0 = -1e30f;
  const auto out = launch(*ir, n_edges,
                          {as_bytes(w0), as_bytes(std::vector<double>{total0}), as_bytes(std::vector<float>{hi0}),
                           as_bytes(m0), as_bytes(ec), as_bytes(std::vector<double>(blocks, -1.0)),
                           as_bytes(std::vector<float>(blocks, -1.0f)), as_bytes(std::vector<std::int32_t>{0}),
                           as_bytes(std::vector<std::int32_t>(cg::error_fields, 0))});
  parloop_test::check_values<float>(from_bytes<float>(out[0]), std::vector<float>(w.host().begin(), w.host().end()));
  parloop_test::check_values<std::int32_t>(from_bytes<std::int32_t>(out[3]),
                                           std::vector<std::int32_t>(m.host().begin(), m.host().end()));
  // The last block combined every block's partials with the globals' values on the device.
  parloop_test::check_value(from_bytes<double>(out[1])[0], total0 + total.value());
  CHECK(from_bytes<float>(out[2])[0] == hi.value());
  CHECK(from_bytes<std::int32_t>(out[7])[0] == 0);
  CHECK(from_bytes<std::int32_t>(out[8]) == std::vector<std::int32_t>(cg::error_fields, 0));
}

TEST_CASE("a computed index out of range is recorded on the GPU, once, and nothing outside is touched", "[gpu]") {
  const int n = 10000;
  const pl::Runtime rt = host();
  const pl::Set points(rt, n);
  pl::Dat<double, 3> q(points);
  pl::Dat<std::int32_t> which(points);
  pl::Dat<double> out(points);
  auto pick = pl::kernel("pick", [](auto q, auto i, auto out) { out = q[i]; });
  const auto ir = pick.traced(q(pl::READ), which(pl::READ), out(pl::WRITE));
  REQUIRE(cg::buffers(*ir).back().role == cg::buffer_role::index_errors);

  std::vector<double> q0(static_cast<std::size_t>(n) * 3);
  for (std::size_t i = 0; i < q0.size(); ++i) q0[i] = static_cast<double>(i);
  std::vector<std::int32_t> which0(n);
  for (int e = 0; e < n; ++e) which0[static_cast<std::size_t>(e)] = e % 3;
  which0[7777] = -4;  // the only element out of range
  const auto got = launch(*ir, n, {as_bytes(q0), as_bytes(which0), as_bytes(std::vector<double>(n, -1.0)),
                                   as_bytes(std::vector<std::int32_t>(cg::error_fields, 0))});
  const auto record = from_bytes<std::int32_t>(got[3]);
  CHECK(record[cg::error_site] == cg::index_site(0, false));
  CHECK(record[cg::error_index_low] == -4);
  CHECK(record[cg::error_index_high] == -1);  // the sign's high bits
  CHECK(record[cg::error_bound] == 3);
  CHECK(record[cg::error_kernel] == cg::kernel_tag("pick"));
  const auto values = from_bytes<double>(got[2]);
  for (int e = 0; e < n; ++e) {
    // The bad element read component 0 instead; every other one its own.
    const int component = e == 7777 ? 0 : e % 3;
    if (values[static_cast<std::size_t>(e)] != q0[static_cast<std::size_t>(e) * 3 + component]) {
      FAIL("element " << e << ": " << values[static_cast<std::size_t>(e)]);
    }
  }
}

TEST_CASE("device memory on the GPU: copies, a copy riding along with the next download, a refusal", "[gpu]") {
  const cu::context ctx(cu::select_device(cu::devices(), ""));
  cu::memory mem(ctx);
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

  CHECK_THROWS_WITH(mem.allocate(ctx.dev().total_memory * 2),
                    Contains("cannot allocate " + std::to_string(ctx.dev().total_memory * 2) + " bytes on " +
                             ctx.dev().name));
}

int main(int argc, char** argv) {
  try {
    const cu::driver& d = cu::driver::get();
    int count = 0;
    d.check(d.device_get_count(&count), "cuDeviceGetCount");
    if (count == 0) throw pl::backend_unavailable("CUDA: no GPU");
    d.check(d.device_get(&gpu, 0), "cuDeviceGet");
    int major = 0, minor = 0;
    d.check(d.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu), "cuDeviceGetAttribute");
    d.check(d.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu), "cuDeviceGetAttribute");
    gpu_arch = "sm_" + std::to_string(major * 10 + minor);
    CUcontext context = nullptr;
    d.check(d.primary_ctx_retain(&context, gpu), "cuDevicePrimaryCtxRetain");
    d.check(d.ctx_set_current(context), "cuCtxSetCurrent");
  } catch (const pl::error& e) {
    std::printf("skipped: no GPU to run on: %s\n", e.what());
    return 77;
  }
  std::printf("GPU tests on %s\n", gpu_arch.c_str());
  return Catch::Session().run(argc, argv);
}
