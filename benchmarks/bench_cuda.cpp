// SPDX-License-Identifier: MIT
// parloop on CUDA against hand-written CUDA driver-API code, in one run on one GPU:
//  - launch overhead: a small par_loop against cuLaunchKernel, by hand, of the same CUBIN (the
//    generated source compiled by NVRTC as a user would): parloop's own cost per launch, and
//    what the trace check adds to it (sampled, the default, and every call, against none);
//  - triad throughput (a = b + s * c) at 2^28 and 2^24 doubles, parloop's default strategy and
//    its other strategies, against hand-written triads of several shapes (one element per
//    thread at four block sizes, double2 loads, two adjacent elements per thread, double2 over
//    a range with a scalar tail -- the shape of parloop's vectors_across_workgroups -- four
//    elements per thread, grid-stride loops): the ratio is against the best of them;
//  - the cold first par_loop of a new kernel (trace, generate, NVRTC, load, first launch)
//    against NVRTC + cuModuleLoadData + the first launch of the same source, by hand;
//  - a loop with a global SUM against the same loop without one (small and large).
// Each figure is the median of repeated timings after a warm-up; ratios are parloop's time over
// the baseline's (below 1: parloop is faster). Usage: bench_cuda [log2 n of the small triad]
#include <parloop/backend/cuda/backend.hpp>
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pl = parloop;
namespace cu = parloop::backend::cuda;

namespace {

using parloop_bench::median;
using parloop_bench::median_seconds;

// A hand-written module: NVRTC for the device's architecture, loaded, its kernels launched with
// cuLaunchKernel on the runtime's stream -- what a user of the driver API writes.
class hand_module {
 public:
  hand_module(const cu::context& ctx, const std::string& source, const std::string& name, const cu::target& t)
      : ctx_(ctx) {
    const cu::compiled c = cu::build({pl::codegen::dialect_kind::cuda, name, name, source, {}, {}}, t);
    ctx_.api().check(ctx_.api().module_load_data(&module_, c.binary.data()), "cuModuleLoadData");
  }
  hand_module(const hand_module&) = delete;
  hand_module& operator=(const hand_module&) = delete;
  ~hand_module() { ctx_.api().module_unload(module_); }

  CUfunction function(const char* name) const {
    CUfunction f = nullptr;
    ctx_.api().check(ctx_.api().module_get_function(&f, module_, name), "cuModuleGetFunction");
    return f;
  }

 private:
  const cu::context& ctx_;
  CUmodule module_ = nullptr;
};

template <class... Args>
void launch(const cu::context& ctx, CUfunction f, unsigned blocks, unsigned threads, Args... args) {
  void* params[] = {&args...};
  ctx.api().check(ctx.api().launch_kernel(f, blocks, 1, 1, threads, 1, 1, 0, ctx.stream(), params, nullptr),
                  "cuLaunchKernel");
}

constexpr const char* hand_source = R"(
extern "C" __global__ void triad_each(long long n, double* __restrict__ a, const double* __restrict__ b,
                                      const double* __restrict__ c, double s) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
// n even: one double2 per thread.
extern "C" __global__ void triad_vec2(long long n, double* __restrict__ a, const double* __restrict__ b,
                                      const double* __restrict__ c, double s) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i < n) {
    const double2 x = reinterpret_cast<const double2*>(b)[i];
    const double2 y = reinterpret_cast<const double2*>(c)[i];
    reinterpret_cast<double2*>(a)[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
}
// Four elements per thread, a block's worth apart: coalesced, four loads in flight.
extern "C" __global__ void triad_four(long long n, double* __restrict__ a, const double* __restrict__ b,
                                      const double* __restrict__ c, double s) {
  const long long first = (long long)blockIdx.x * blockDim.x * 4 + threadIdx.x;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const long long i = first + (long long)j * blockDim.x;
    if (i < n) a[i] = b[i] + s * c[i];
  }
}
// Two adjacent elements per thread with scalar loads: does the compiler pair them by itself?
extern "C" __global__ void triad_pair(long long n, double* __restrict__ a, const double* __restrict__ b,
                                      const double* __restrict__ c, double s) {
  const long long first = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (first < n) a[first] = b[first] + s * c[first];
  if (first + 1 < n) a[first + 1] = b[first + 1] + s * c[first + 1];
}
// The shape of parloop's vectors_across_workgroups{block, 2} over a range [start, end): double2
// where the pair is whole and aligned (start even), scalar otherwise.
extern "C" __global__ void triad_vec2_range(int start, int end, double* __restrict__ a, const double* __restrict__ b,
                                            const double* __restrict__ c, double s) {
  const long long first = (long long)start + 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (first + 1 < end && (start & 1) == 0) {
    const double2 x = *reinterpret_cast<const double2*>(b + first);
    const double2 y = *reinterpret_cast<const double2*>(c + first);
    *reinterpret_cast<double2*>(a + first) = make_double2(x.x + s * y.x, x.y + s * y.y);
  } else {
    for (long long i = first; i < end && i < first + 2; ++i) a[i] = b[i] + s * c[i];
  }
}
extern "C" __global__ void triad_stride(long long n, double* __restrict__ a, const double* __restrict__ b,
                                        const double* __restrict__ c, double s) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}
extern "C" __global__ void triad_vec2_stride(long long n, double* __restrict__ a, const double* __restrict__ b,
                                             const double* __restrict__ c, double s) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; 2 * i < n; i += (long long)gridDim.x * blockDim.x) {
    const double2 x = reinterpret_cast<const double2*>(b)[i];
    const double2 y = reinterpret_cast<const double2*>(c)[i];
    reinterpret_cast<double2*>(a)[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
}
)";

CUdeviceptr pointer_of(const pl::detail::mirrored_array& array) {
  return static_cast<const cu::buffer*>(array.buffer())->get();
}

unsigned blocks_for(long long items, unsigned threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

struct shape_time {
  std::string name;
  double seconds;
};

// Triad at n doubles: parloop's strategies and the hand-written shapes, timed alternately
// round by round, each round in a rotated order, so that all see the GPU in the same state.
// Returns false if a result is wrong.
bool triad_at(const pl::Runtime& rt, const cu::context& ctx, const hand_module& hand, long long n) {
  const pl::Set points(rt, static_cast<pl::index_t>(n), "points");
  pl::Dat<double> a(points), b(points), c(points);
  {
    const auto bv = b.host_view(pl::WRITE);
    const auto cv = c.host_view(pl::WRITE);
    for (long long i = 0; i < n; ++i) {
      bv[static_cast<std::size_t>(i)] = 0.5 + static_cast<double>(i % 97) * 0.01;
      cv[static_cast<std::size_t>(i)] = 1.5 - static_cast<double>(i % 89) * 0.01;
    }
  }
  pl::Global<double> s(rt, 3.0);
  auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  const auto sync = [&] { rt.synchronize(); };
  const pl::strategy defaults = rt.default_strategy();
  struct candidate {
    std::string name;
    std::function<void()> run;
  };
  std::vector<candidate> candidates;
  const auto parloop_with = [&](const std::string& name, const pl::strategy& st) {
    candidates.push_back({"parloop " + name + " " + pl::to_string(st), [&, st] {
                            pl::par_loop(triad, points, st, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
                          }});
  };
  parloop_with("default", defaults);
  parloop_with("", pl::split_n_across_workgroups{128});
  parloop_with("", pl::split_n_across_workgroups{256});
  parloop_with("", pl::grid_stride{256, 4});
  parloop_with("", pl::grid_stride{512, 8});
  parloop_with("", pl::chunked{256, 4});
  for (const int block : {128, 256}) {
    for (const int width : {2, 4}) parloop_with("", pl::vectors_across_workgroups{block, width});
  }
  // The warm-ups put every array on the device.
  for (const candidate& k : candidates) k.run();
  sync();
  const CUdeviceptr pa = pointer_of(a.state().array), pb = pointer_of(b.state().array),
                    pc = pointer_of(c.state().array);
  const double sv = 3.0;
  const unsigned sms = static_cast<unsigned>(ctx.dev().multiprocessors);
  const std::size_t first_hand = candidates.size();
  for (const unsigned threads : {128u, 256u, 512u, 1024u}) {
    const CUfunction f = hand.function("triad_each");
    candidates.push_back({"hand one per thread, block " + std::to_string(threads),
                          [&, f, threads] { launch(ctx, f, blocks_for(n, threads), threads, n, pa, pb, pc, sv); }});
  }
  for (const unsigned threads : {128u, 256u}) {
    candidates.push_back(
        {"hand double2 per thread, block " + std::to_string(threads), [&, f = hand.function("triad_vec2"), threads] {
           launch(ctx, f, blocks_for((n + 1) / 2, threads), threads, n, pa, pb, pc, sv);
         }});
    candidates.push_back({"hand two adjacent per thread, block " + std::to_string(threads),
                          [&, f = hand.function("triad_pair"), threads] {
                            launch(ctx, f, blocks_for((n + 1) / 2, threads), threads, n, pa, pb, pc, sv);
                          }});
    candidates.push_back({"hand double2 over a range, scalar tail, block " + std::to_string(threads),
                          [&, f = hand.function("triad_vec2_range"), threads] {
                            launch(ctx, f, blocks_for((n + 1) / 2, threads), threads, 0, static_cast<int>(n), pa, pb,
                                   pc, sv);
                          }});
  }
  candidates.push_back({"hand four per thread, block 256", [&, f = hand.function("triad_four")] {
                          launch(ctx, f, blocks_for((n + 3) / 4, 256), 256, n, pa, pb, pc, sv);
                        }});
  for (const unsigned waves : {4u, 8u, 16u}) {
    candidates.push_back(
        {"hand grid-stride, block 256, " + std::to_string(waves) + " blocks per SM",
         [&, f = hand.function("triad_stride"), waves] { launch(ctx, f, sms * waves, 256, n, pa, pb, pc, sv); }});
    candidates.push_back(
        {"hand double2 grid-stride, block 256, " + std::to_string(waves) + " blocks per SM",
         [&, f = hand.function("triad_vec2_stride"), waves] { launch(ctx, f, sms * waves, 256, n, pa, pb, pc, sv); }});
  }
  const int rounds = n >= (1LL << 26) ? 9 : 21;
  std::vector<std::vector<double>> times(candidates.size());
  for (const candidate& k : candidates) k.run();
  sync();
  // Between timings a triad over other arrays (four times the H200's 50 MB L2) leaves nothing
  // of a, b and c in the L2: otherwise what the kernel before left there (a tenth of the
  // arrays at 2^24) favoured some kernels by 1-2%, depending on which ran before them.
  const long long scrub_n = 1LL << 23;
  const pl::Set scrub_points(rt, static_cast<pl::index_t>(scrub_n), "scrub");
  pl::Dat<double> x(scrub_points), y(scrub_points), z(scrub_points);
  pl::par_loop(triad, scrub_points, x(pl::WRITE), y(pl::READ), z(pl::READ), s(pl::READ));
  sync();
  const CUdeviceptr px = pointer_of(x.state().array), py = pointer_of(y.state().array);
  const CUdeviceptr pz = pointer_of(z.state().array);
  const auto scrub = [&, f = hand.function("triad_each")] {
    launch(ctx, f, blocks_for(scrub_n, 256), 256, scrub_n, px, py, pz, sv);
    sync();
  };
  // Each round starts one candidate later: the first of a round ran 0.5-2% slower than the same
  // kernel later in it, which would otherwise always fall on parloop's default.
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t j = 0; j < candidates.size(); ++j) {
      const std::size_t i = (j + static_cast<std::size_t>(r)) % candidates.size();
      scrub();
      times[i].push_back(median_seconds(1, [&] {
        candidates[i].run();
        sync();
      }));
    }
  }
  // Check parloop's result (the last writer of a was a hand kernel: run parloop's default again).
  candidates.front().run();
  const auto got = a.host();
  const auto bv = b.host(), cv = c.host();
  double max_diff = 0.0;
  for (long long i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    max_diff = std::max(max_diff, std::abs(got[k] - (bv[k] + 3.0 * cv[k])));
  }

  const double bytes = 3.0 * 8.0 * static_cast<double>(n);
  std::printf("triad, n = 2^%d doubles (%.2f GB moved per loop):\n",
              static_cast<int>(std::log2(static_cast<double>(n))), bytes / 1e9);
  double best_hand = 1e30;
  std::string best_name;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double t = median(times[i]);
    std::printf("  %-58s %9.1f us  %6.3f TB/s\n", candidates[i].name.c_str(), t * 1e6, bytes / t / 1e12);
    if (i >= first_hand && t < best_hand) {
      best_hand = t;
      best_name = candidates[i].name;
    }
  }
  const double t_default = median(times.front());
  std::printf("  ratio: parloop default / best hand-written (%s) = %.3f  (goal <= 1.0)\n", best_name.c_str(),
              t_default / best_hand);
  std::printf("  parloop default: %.3f TB/s; max |error| %.1e\n\n", bytes / t_default / 1e12, max_diff);
  // The device contracts b + s * c into one fused multiply-add; the host rounds twice.
  return max_diff <= 1e-14;
}

}  // namespace

int main(int argc, char** argv) {
  // The cold path is the compile a disk cache saves: every figure here is without it.
  ::setenv("PARLOOP_CACHE", "off", 1);
  const int log2_small = argc > 1 ? std::atoi(argv[1]) : 24;
  // The driver's JIT cache would serve PTX; parloop builds CUBINs, but hand-written PTX must not
  // be served either.
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  if (const pl::backend_status cuda = pl::backends().front(); !cuda.available) {
    std::printf("bench_cuda: CUDA is not available here: %s\n", cuda.reason.c_str());
    return 77;
  }
  pl::Runtime rt = pl::Runtime::open(pl::backend_kind::cuda);
  const auto& backend = static_cast<const cu::backend&>(*rt.state()->backend);
  const cu::context& ctx = backend.cuda_context();
  const cu::target t = backend.compile_target();
  std::printf("device: %s\ndriver: CUDA %d.%d; compiler: %s (%s)\ndefault strategy: %s; reductions: %s\n\n",
              rt.device_name().c_str(), ctx.dev().driver_version / 1000, ctx.dev().driver_version % 1000 / 10,
              backend.signature().compiler.c_str(), t.options_text().c_str(),
              pl::to_string(rt.default_strategy()).c_str(), pl::to_string(rt.default_reduction_strategy()).c_str());
  const hand_module hand(ctx, hand_source, "hand_triads", t);
  const auto sync = [&] { rt.synchronize(); };
  bool ok = true;

  // Launch overhead: 256 elements, many launches, one wait; alternately.
  {
    const int n = 1 << 20, small = 256, launches = 5000, reps = 15;
    const pl::Set points(rt, n, "points");
    pl::Dat<double> a(points), b(points, std::vector<double>(n, 1.0)), c(points, std::vector<double>(n, 2.0));
    pl::Global<double> s(rt, 3.0);
    auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
    const auto ir = triad.traced(a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
    const pl::strategy st = pl::split_n_across_workgroups{256};
    const pl::codegen::generated_source generated = pl::codegen::generate(*ir, pl::codegen::dialect_kind::cuda, st);
    const hand_module same(ctx, generated.text, generated.entry, t);
    const CUfunction f = same.function(generated.entry.c_str());
    pl::par_loop(triad, points, st, pl::range{0, small}, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
    sync();
    const CUdeviceptr pa = pointer_of(a.state().array), pb = pointer_of(b.state().array);
    const CUdeviceptr pc = pointer_of(c.state().array), ps = pointer_of(s.state().array);
    // parloop's launches under each trace-check schedule (the default, sampled, first), and by hand.
    const pl::trace_checks schedules[] = {pl::trace_checks::sampled, pl::trace_checks::off,
                                          pl::trace_checks::every_call};
    std::vector<double> pl_times[3], hand_times;
    for (int r = 0; r < reps; ++r) {
      for (int m = 0; m < 3; ++m) {
        rt.set_trace_checks(schedules[m]);
        pl_times[m].push_back(median_seconds(1, [&] {
          for (int i = 0; i < launches; ++i) {
            pl::par_loop(triad, points, st, pl::range{0, small}, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
          }
          sync();
        }));
      }
      hand_times.push_back(median_seconds(1, [&] {
        for (int i = 0; i < launches; ++i) launch(ctx, f, 1, 256, 0, small, pa, pb, pc, ps);
        sync();
      }));
    }
    rt.set_trace_checks(schedules[0]);
    const double t_pl = median(pl_times[0]) / launches, t_hand = median(hand_times) / launches;
    const double t_off = median(pl_times[1]) / launches, t_every = median(pl_times[2]) / launches;
    ok = ok && a.host()[small - 1] == 7.0;
    std::printf(
        "launch of a 256-element loop: parloop %.2f us, cuLaunchKernel by hand %.2f us: ratio %.3f (goal <= 1.15)\n",
        t_pl * 1e6, t_hand * 1e6, t_pl / t_hand);
    std::printf(
        "trace checks on that launch: sampled (the default) %.3fx unchecked (goal <= 1.03), every call %.3fx "
        "(%.2f us unchecked)\n\n",
        t_pl / t_off, t_every / t_off, t_off * 1e6);
  }

  ok = triad_at(rt, ctx, hand, 1LL << 28) && ok;
  ok = triad_at(rt, ctx, hand, 1LL << log2_small) && ok;

  // A loop with a global SUM against the same loop without one, alternately: launch-bound (many
  // loops of 256 elements, one wait) and bandwidth-bound (2^log2_small elements).
  {
    const pl::Set points(rt, 1 << log2_small, "points");
    const parloop_bench::sum_cost sum = parloop_bench::measure_sum(rt, points, 256, 2000, 15, 15);
    ok = ok && sum.relative_error < 1e-9;
    std::printf(
        "SUM: 256 elements, %.2f us against %.2f us without: ratio %.3f; 2^%d elements, %.1f us against %.1f "
        "us: ratio %.3f (goal <= 1.3); relative error of the sum %.1e\n\n",
        sum.sum_small * 1e6, sum.plain_small * 1e6, sum.sum_small / sum.plain_small, log2_small, sum.sum_big * 1e6,
        sum.plain_big * 1e6, sum.sum_big / sum.plain_big, sum.relative_error);
  }

  // The cold path: each trial a kernel no one has built before (its captured constant differs),
  // its first par_loop against NVRTC + cuModuleLoadData + the first launch of another new one.
  {
    const int n = 1 << 16, small = 256, trials = 9;
    const pl::Set points(rt, n, "points");
    pl::Dat<double> a(points), b(points, std::vector<double>(n, 1.0)), c(points, std::vector<double>(n, 2.0));
    pl::par_loop(pl::kernel("warm", [](auto a, auto b) { a = b; }), points, a(pl::WRITE), b(pl::READ));
    pl::par_loop(pl::kernel("warm", [](auto c, auto b) { c = b; }), points, c(pl::RW), b(pl::READ));
    sync();
    const CUdeviceptr pa = pointer_of(a.state().array), pb = pointer_of(b.state().array);
    const CUdeviceptr pc = pointer_of(c.state().array);
    const pl::ir::grid_size_functor grid = pl::codegen::grid_size(rt.default_strategy());
    const int block = pl::detail::block_size(rt.default_strategy());
    std::vector<double> cold_pl, cold_hand;
    for (int i = 0; i < trials; ++i) {
      const double salt = 1.0 + 0.001 * i;
      auto cold = pl::kernel("cold", [salt](auto a, auto b, auto c) { a = b * salt + c; });
      auto other = pl::kernel("cold", [salt](auto a, auto b, auto c) { a = b * (salt + 0.5) + c; });
      const pl::codegen::generated_source text =
          pl::codegen::generate(*other.traced(a(pl::WRITE), b(pl::READ), c(pl::READ)), pl::codegen::dialect_kind::cuda,
                                rt.default_strategy());
      const auto by_parloop = [&] {
        cold_pl.push_back(median_seconds(1, [&] {
          pl::par_loop(cold, points, pl::range{0, small}, a(pl::WRITE), b(pl::READ), c(pl::READ));
          sync();
        }));
      };
      const auto by_hand = [&] {
        cold_hand.push_back(median_seconds(1, [&] {
          const hand_module m(ctx, text.text, text.entry, t);
          launch(ctx, m.function(text.entry.c_str()), static_cast<unsigned>(grid(0, small, backend.facts())),
                 static_cast<unsigned>(block), 0, small, pa, pb, pc);
          sync();
        }));
      };
      // Each goes first in every other trial: neither pays alone for what a first compile costs.
      if (i % 2 == 0) {
        by_parloop();
        by_hand();
      } else {
        by_hand();
        by_parloop();
      }
    }
    const double t_pl = median(cold_pl), t_hand = median(cold_hand);
    std::printf(
        "cold first loop: parloop %.2f ms, NVRTC + cuModuleLoadData + launch by hand %.2f ms: +%.2f ms "
        "(goal <= +3 ms), ratio %.3f; fastest of %d: %.2f and %.2f ms\n",
        t_pl * 1e3, t_hand * 1e3, (t_pl - t_hand) * 1e3, t_pl / t_hand, trials,
        *std::min_element(cold_pl.begin(), cold_pl.end()) * 1e3,
        *std::min_element(cold_hand.begin(), cold_hand.end()) * 1e3);
  }
  if (!ok) {
    std::printf("WRONG RESULTS\n");
    return 1;
  }
  return 0;
}
