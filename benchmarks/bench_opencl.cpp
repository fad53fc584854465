// SPDX-License-Identifier: MIT
// parloop on OpenCL against hand-written OpenCL, in one run on one device:
//  - launch overhead: a small par_loop against clSetKernelArg + clEnqueueNDRangeKernel, by
//    hand, of the same generated kernel (built from the same source): parloop's own cost;
//  - triad throughput (a = b + s * c, 2^24 doubles) against the better of two hand-written
//    triads: one element per work-item, and a chunked loop of one work-item per slice;
//  - a loop with a global SUM against the same loop without one, per loop (small and large);
//  - the cold first par_loop of a new kernel (trace, generate, build, first launch) against
//    clBuildProgram + clCreateKernel + the first launch of the same source, by hand;
//  - many new kernels, each compiled and run once, by hand, by parloop without its disk cache and
//    by parloop storing each in a new cache folder, every store finished within the time;
//  - a gather by a computed index with the device-side index check against without it;
//  - tracing time against the number of pl::let locals.
// Each figure is the median of repeated timings after a warm-up; ratios are parloop's time
// over the baseline's (below 1: parloop is faster). The device compilers' own disk caches
// (PoCL's, NVIDIA's) are switched off, so that every cold build is one. Usage: bench_opencl [log2 n]
#include <parloop/backend/opencl/backend.hpp>
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <malloc.h>
#include <unistd.h>

namespace pl = parloop;
namespace ocl = parloop::backend::opencl;

namespace {

using parloop_bench::median;
using parloop_bench::median_seconds;

// A hand-written kernel: built from source, arguments set before every launch.
struct hand_kernel {
  hand_kernel(const ocl::context& ctx, const char* source, const char* name) : ctx_(ctx) {
    // Source text from a string literal or a generated source, built as a user would.
    cl_int status = CL_SUCCESS;
    program_ = ocl::program_handle(clCreateProgramWithSource(ctx.get(), 1, &source, nullptr, &status));
    ocl::check(status, "clCreateProgramWithSource");
    cl_device_id id = ctx.device().id;
    ocl::check(clBuildProgram(program_.get(), 1, &id, "", nullptr, nullptr), "clBuildProgram");
    kernel_ = ocl::kernel_handle(clCreateKernel(program_.get(), name, &status));
    ocl::check(status, "clCreateKernel");
  }
  template <class... Args>
  void launch(std::size_t global, std::size_t local, const Args&... args) {
    cl_uint i = 0;
    (ocl::check(clSetKernelArg(kernel_.get(), i++, sizeof(Args), &args), "clSetKernelArg"), ...);
    ocl::check(clEnqueueNDRangeKernel(ctx_.queue(), kernel_.get(), 1, nullptr, &global, &local, 0, nullptr, nullptr),
               "clEnqueueNDRangeKernel");
  }

 private:
  const ocl::context& ctx_;
  ocl::program_handle program_;
  ocl::kernel_handle kernel_;
};

constexpr const char* hand_source = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void triad_each(const int n, __global double* restrict a, __global const double* restrict b,
                         __global const double* restrict c, const double s) {
  const int i = get_global_id(0);
  if (i < n) a[i] = b[i] + s * c[i];
}
__kernel void triad_slice(const int n, const int per_item, __global double* restrict a,
                          __global const double* restrict b, __global const double* restrict c, const double s) {
  const long first = (long)get_global_id(0) * per_item;
  const long last = min((long)n, first + per_item);
  for (long i = first; i < last; ++i) a[i] = b[i] + s * c[i];
}
)";

cl_mem mem_of(const pl::detail::mirrored_array& array) {
  return static_cast<const ocl::buffer*>(array.buffer())->get();
}

}  // namespace

int main(int argc, char** argv) {
  // The cold path is the compile a disk cache saves: every figure here is without it.
  ::setenv("PARLOOP_CACHE", "off", 1);
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int n = 1 << log2_n;
  // Before OpenCL starts: no compiler disk cache may serve a "cold" build.
  ::setenv("POCL_KERNEL_CACHE", "0", 1);
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::opencl);
  const auto& backend = static_cast<const ocl::backend&>(*rt.state()->backend);
  const ocl::context& ctx = backend.opencl_context();
  const auto finish = [&] { ocl::check(clFinish(ctx.queue()), "clFinish"); };
  std::printf("device: %s\ndefault strategy: %s\n\n", rt.device_name().c_str(),
              pl::to_string(rt.default_strategy()).c_str());

  const pl::Set points(rt, n, "points");
  std::vector<double> b0(n), c0(n);
  for (int i = 0; i < n; ++i) {
    b0[i] = 0.5 + (i % 97) * 0.01;
    c0[i] = 1.5 - (i % 89) * 0.01;
  }
  pl::Dat<double> a(points), b(points, b0), c(points, c0);
  pl::Global<double> s(rt, 3.0);
  auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  hand_kernel each(ctx, hand_source, "triad_each");
  hand_kernel slice(ctx, hand_source, "triad_slice");
  const pl::codegen::generated_source generated =
      pl::codegen::generate(*triad.traced(a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ)),
                            pl::codegen::dialect_kind::opencl, pl::split_n_across_workgroups{256});
  hand_kernel same(ctx, generated.text.c_str(), generated.entry.c_str());

  // Warm up: compile, and put every array on the device.
  pl::par_loop(triad, points, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
  pl::par_loop(triad, points, pl::split_n_across_workgroups{256}, pl::range{0, 256}, a(pl::WRITE), b(pl::READ),
               c(pl::READ), s(pl::READ));
  finish();
  const cl_mem ma = mem_of(a.state().array), mb = mem_of(b.state().array), mc = mem_of(c.state().array);
  const cl_mem ms = mem_of(s.state().array);
  const double sv = 3.0;

  // Launch overhead: 256 elements, many launches, one wait. The two are timed alternately,
  // so that both see the device's thread pool in the same state.
  const int small = 256, launches = 2000, reps = 15;
  std::vector<double> pl_times, hand_times;
  for (int r = 0; r < reps; ++r) {
    pl_times.push_back(median_seconds(1, [&] {
      for (int i = 0; i < launches; ++i) {
        pl::par_loop(triad, points, pl::split_n_across_workgroups{256}, pl::range{0, small}, a(pl::WRITE), b(pl::READ),
                     c(pl::READ), s(pl::READ));
      }
      finish();
    }));
    hand_times.push_back(median_seconds(1, [&] {
      for (int i = 0; i < launches; ++i) same.launch(256, 256, 0, small, ma, mb, mc, ms);
      finish();
    }));
  }
  std::sort(pl_times.begin(), pl_times.end());
  std::sort(hand_times.begin(), hand_times.end());
  const double t_pl_launch = pl_times[reps / 2] / launches;
  const double t_hand_launch = hand_times[reps / 2] / launches;

  // Triad throughput.
  const int big_reps = 7;
  const double t_pl = median_seconds(big_reps, [&] {
    pl::par_loop(triad, points, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
    finish();
  });
  const std::size_t block = 256;
  const double t_each = median_seconds(big_reps, [&] {
    each.launch((static_cast<std::size_t>(n) + block - 1) / block * block, block, n, ma, mb, mc, sv);
    finish();
  });
  const int per_item = 64;
  const std::size_t slices = (static_cast<std::size_t>(n) + per_item - 1) / per_item;
  const std::size_t slice_block = 16;
  const double t_slice = median_seconds(big_reps, [&] {
    slice.launch((slices + slice_block - 1) / slice_block * slice_block, slice_block, n, per_item, ma, mb, mc, sv);
    finish();
  });

  // Check that parloop's a is right before reporting its speed.
  const auto got = a.host();
  double max_diff = 0.0;
  for (int i = 0; i < n; ++i) max_diff = std::max(max_diff, std::abs(got[i] - (b0[i] + 3.0 * c0[i])));

  // A loop with a global SUM against the same loop without one, alternately: launch-bound
  // (many loops of 256 elements, one wait) and bandwidth-bound (the whole set).
  const parloop_bench::sum_cost sum = parloop_bench::measure_sum(rt, points, small, launches, reps, big_reps);
  const double t_plain_small = sum.plain_small, t_sum_small = sum.sum_small;
  const double t_plain_big = sum.plain_big, t_sum_big = sum.sum_big;
  const double total_error = sum.relative_error;

  // The cold path: each trial a kernel no one has built before (its captured constant differs),
  // first par_loop against building and launching the generated source of another new one.
  const pl::ir::device_facts facts = backend.facts();
  const pl::ir::grid_size_functor default_grid = pl::codegen::grid_size(rt.default_strategy());
  const std::size_t default_block = static_cast<std::size_t>(pl::detail::block_size(rt.default_strategy()));
  const int trials = 9;
  std::vector<double> cold_pl, cold_hand;
  for (int t = 0; t < trials; ++t) {
    const double salt = 1.0 + 0.001 * t;
    auto cold = pl::kernel("cold", [salt](auto a, auto b, auto c) { a = b * salt + c; });
    auto other = pl::kernel("cold", [salt](auto a, auto b, auto c) { a = b * (salt + 0.5) + c; });
    const pl::codegen::generated_source text =
        pl::codegen::generate(*other.traced(a(pl::WRITE), b(pl::READ), c(pl::READ)), pl::codegen::dialect_kind::opencl,
                              rt.default_strategy());
    cold_pl.push_back(median_seconds(1, [&] {
      pl::par_loop(cold, points, pl::range{0, small}, a(pl::WRITE), b(pl::READ), c(pl::READ));
      finish();
    }));
    cold_hand.push_back(median_seconds(1, [&] {
      hand_kernel k(ctx, text.text.c_str(), text.entry.c_str());
      const std::size_t groups = static_cast<std::size_t>(default_grid(0, small, facts));
      k.launch(groups * default_block, default_block, 0, small, ma, mb, mc);
      finish();
    }));
  }
  const double t_cold_pl = median(cold_pl), t_cold_hand = median(cold_hand);

  // Many new kernels: a batch of `batch` kernels no one has built before (each trial's constants
  // differ), each built and run once over `small` elements, with one wait at the end. parloop's
  // runtime opens and closes inside the time, so that everything it stores is on disk.
  const int batch = 12, batch_reps = 3;
  int salt_count = 0;
  const auto next_salt = [&] { return 2.0 + 0.001 * salt_count++; };
  const auto hand_batch = [&] {
    for (int i = 0; i < batch; ++i) {
      const double salt = next_salt();
      auto k = pl::kernel("batch", [salt](auto a, auto b, auto c) { a = b * salt + c; });
      const pl::codegen::generated_source text = pl::codegen::generate(
          *k.traced(a(pl::WRITE), b(pl::READ), c(pl::READ)), pl::codegen::dialect_kind::opencl, rt.default_strategy());
      hand_kernel built(ctx, text.text.c_str(), text.entry.c_str());
      const std::size_t groups = static_cast<std::size_t>(default_grid(0, small, facts));
      built.launch(groups * default_block, default_block, 0, small, ma, mb, mc);
    }
    finish();
  };
  const std::filesystem::path batch_dir =
      std::filesystem::temp_directory_path() / ("parloop-bench-opencl-" + std::to_string(::getpid()));
  double stored_error = 0.0;
  std::uintmax_t stored_files = 0;
  const auto parloop_batch = [&](bool store) {
    ::setenv("PARLOOP_CACHE", store ? "on" : "off", 1);
    ::setenv("PARLOOP_CACHE_DIR", batch_dir.c_str(), 1);
    {
      const pl::Runtime batch_rt = pl::Runtime::open(pl::backend_kind::opencl);
      const pl::Set few(batch_rt, small);
      pl::Dat<double> ba(few), bb(few, std::vector<double>(b0.begin(), b0.begin() + small)),
          bc(few, std::vector<double>(c0.begin(), c0.begin() + small));
      double salt = 0.0;
      for (int i = 0; i < batch; ++i) {
        salt = next_salt();
        auto k = pl::kernel("batch", [salt](auto a, auto b, auto c) { a = b * salt + c; });
        pl::par_loop(k, few, ba(pl::WRITE), bb(pl::READ), bc(pl::READ));
      }
      stored_error = std::max(stored_error, std::abs(ba.host()[3] - (b0[3] * salt + c0[3])));
    }
    ::setenv("PARLOOP_CACHE", "off", 1);
    std::error_code ignored;
    if (store) stored_files = std::filesystem::remove_all(batch_dir, ignored);
  };
  std::vector<double> batch_hand, batch_off, batch_on;
  for (int r = 0; r < batch_reps; ++r) {
    batch_hand.push_back(median_seconds(1, hand_batch));
    batch_off.push_back(median_seconds(1, [&] { parloop_batch(false); }));
    batch_on.push_back(median_seconds(1, [&] { parloop_batch(true); }));
  }
  const double t_batch_hand = median(batch_hand), t_batch_off = median(batch_off), t_batch_on = median(batch_on);

  // Memory: kernels compiled and kept alive, then kernels made, launched and dropped in a loop;
  // parloop against the same done by hand (build, create, launch, finish), in resident KB each.
  const auto rss_kb = [] {
    ::malloc_trim(0);
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
      std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / 1024.0;
  };
  const auto salted = [](double salt) {
    return pl::kernel("kept", [salt](auto a, auto b, auto c) { a = b * salt + c; });
  };
  const auto salted_text = [&](double salt) {
    return pl::codegen::generate(*salted(salt).traced(a(pl::WRITE), b(pl::READ), c(pl::READ)),
                                 pl::codegen::dialect_kind::opencl, rt.default_strategy())
        .text;
  };
  const std::string kept_entry = pl::codegen::entry_name(*salted(1.0).traced(a(pl::WRITE), b(pl::READ), c(pl::READ)));
  const auto run_salted = [&](const auto& k) {
    pl::par_loop(k, points, pl::range{0, small}, a(pl::WRITE), b(pl::READ), c(pl::READ));
    finish();
  };
  const auto run_hand = [&](hand_kernel& k) {
    const std::size_t groups = static_cast<std::size_t>(default_grid(0, small, facts));
    k.launch(groups * default_block, default_block, 0, small, ma, mb, mc);
    finish();
  };
  const int kept_count = 100, dropped_count = 50;
  double kb_kept_pl = 0.0, kb_kept_hand = 0.0, kb_dropped_pl = 0.0, kb_dropped_hand = 0.0;
  {
    std::vector<decltype(salted(0.0))> kept;
    const double before = rss_kb();
    for (int i = 0; i < kept_count; ++i) {
      kept.push_back(salted(2.0 + 0.001 * i));
      run_salted(kept.back());
    }
    kb_kept_pl = (rss_kb() - before) / kept_count;
  }
  {
    std::vector<std::string> texts;
    for (int i = 0; i < kept_count; ++i) texts.push_back(salted_text(3.0 + 0.001 * i));
    std::vector<std::unique_ptr<hand_kernel>> kept;
    const double before = rss_kb();
    for (const std::string& text : texts) {
      kept.push_back(std::make_unique<hand_kernel>(ctx, text.c_str(), kept_entry.c_str()));
      run_hand(*kept.back());
    }
    kb_kept_hand = (rss_kb() - before) / kept_count;
  }
  {
    const double before = rss_kb();
    for (int i = 0; i < dropped_count; ++i) run_salted(salted(4.0 + 0.001 * i));
    kb_dropped_pl = (rss_kb() - before) / dropped_count;
  }
  {
    std::vector<std::string> texts;
    for (int i = 0; i < dropped_count; ++i) texts.push_back(salted_text(5.0 + 0.001 * i));
    const double before = rss_kb();
    for (const std::string& text : texts) {
      hand_kernel k(ctx, text.c_str(), kept_entry.c_str());
      run_hand(k);
    }
    kb_dropped_hand = (rss_kb() - before) / dropped_count;
  }

  // Index checks: a gather by a computed component (out = q[k], q of 4 components), on the same
  // device in this runtime, which checks computed indices, and in one opened with
  // PARLOOP_CHECK_INDICES=0: a bandwidth-bound loop, and a loop of 256 whose result the host
  // reads (where the check's record comes back too).
  ::setenv("PARLOOP_CHECK_INDICES", "0", 1);
  const pl::Runtime unchecked_rt = pl::Runtime::open(pl::backend_kind::opencl);
  ::unsetenv("PARLOOP_CHECK_INDICES");
  const int gather_n = n / 4;
  struct gather_data {
    gather_data(const pl::Runtime& r, int size) : set(r, size), q(set), k(set), out(set) {
      const auto ks = k.host_view(pl::WRITE);
      for (int i = 0; i < size; ++i) ks[static_cast<std::size_t>(i)] = (i * 7) % 4;
    }
    pl::Set set;
    pl::Dat<double, 4> q;
    pl::Dat<std::int32_t> k;
    pl::Dat<double> out;
  };
  gather_data checked_data(rt, gather_n), unchecked_data(unchecked_rt, gather_n);
  // The read rows on a set of `small` elements: the host reads back 256 values, not the large set.
  gather_data checked_small(rt, small), unchecked_small(unchecked_rt, small);
  auto gather = pl::kernel("gather", [](auto q, auto k, auto out) { out = q[k]; });
  const auto gather_loop = [&](gather_data& d, pl::range r) {
    pl::par_loop(gather, d.set, r, d.q(pl::READ), d.k(pl::READ), d.out(pl::WRITE));
  };
  const auto& unchecked_backend = static_cast<const ocl::backend&>(*unchecked_rt.state()->backend);
  const auto finish_unchecked = [&] { ocl::check(clFinish(unchecked_backend.opencl_context().queue()), "clFinish"); };
  for (int w = 0; w < 2; ++w) {
    gather_loop(checked_data, pl::range{0, gather_n});
    gather_loop(unchecked_data, pl::range{0, gather_n});
    gather_loop(checked_small, pl::range{0, small});
    gather_loop(unchecked_small, pl::range{0, small});
    (void)checked_data.out.host();
    (void)unchecked_data.out.host();
    (void)checked_small.out.host();
    (void)unchecked_small.out.host();
  }
  std::vector<double> big_checked, big_unchecked, read_checked, read_unchecked;
  for (int r = 0; r < big_reps; ++r) {
    big_checked.push_back(median_seconds(1, [&] {
      gather_loop(checked_data, pl::range{0, gather_n});
      finish();
    }));
    big_unchecked.push_back(median_seconds(1, [&] {
      gather_loop(unchecked_data, pl::range{0, gather_n});
      finish_unchecked();
    }));
  }
  const int read_loops = 200;
  for (int r = 0; r < reps; ++r) {
    read_checked.push_back(median_seconds(1,
                                          [&] {
                                            for (int i = 0; i < read_loops; ++i) {
                                              gather_loop(checked_small, pl::range{0, small});
                                              (void)checked_small.out.host();
                                            }
                                          }) /
                           read_loops);
    read_unchecked.push_back(median_seconds(1,
                                            [&] {
                                              for (int i = 0; i < read_loops; ++i) {
                                                gather_loop(unchecked_small, pl::range{0, small});
                                                (void)unchecked_small.out.host();
                                              }
                                            }) /
                             read_loops);
  }
  const double t_big_checked = median(big_checked), t_big_unchecked = median(big_unchecked);
  const double t_read_checked = median(read_checked), t_read_unchecked = median(read_unchecked);

  // Tracing time against the number of pl::let locals (all named alike, the worst case for
  // making names unique). Linear: the time per local stays flat.
  struct trace_row {
    int lets;
    double seconds;
  };
  std::vector<trace_row> trace_rows;
  for (const int lets : {250, 500, 1000, 2000, 4000}) {
    std::vector<double> t;
    for (int r = 0; r < 3; ++r) {
      auto chain = pl::kernel("chain", [lets](auto x) {
        auto acc = pl::let("acc", x * 1.0);
        for (int i = 0; i < lets; ++i) {
          auto term = pl::let("t", acc * 1.0001);
          acc += term;
        }
        x = acc;
      });
      t.push_back(median_seconds(1, [&] { chain.traced(a(pl::RW)); }));
    }
    trace_rows.push_back({lets, median(t)});
  }

  const double bytes = 3.0 * 8.0 * n;
  const double best = std::min(t_each, t_slice);
  std::printf("%-44s %12s %10s\n", "measure", "time", "GB/s");
  std::printf("%-44s %9.2f us\n", "launch, parloop par_loop (256 elements)", t_pl_launch * 1e6);
  std::printf("%-44s %9.2f us\n", "launch, same kernel, set args + enqueue by hand", t_hand_launch * 1e6);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, parloop (default strategy)", t_pl * 1e3, bytes / t_pl * 1e-9);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, hand-written one element per item", t_each * 1e3,
              bytes / t_each * 1e-9);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, hand-written chunked (64 per item)", t_slice * 1e3,
              bytes / t_slice * 1e-9);
  std::printf("%-44s %9.2f us\n", "loop of 256, no reduction", t_plain_small * 1e6);
  std::printf("%-44s %9.2f us\n", "loop of 256, with a global SUM", t_sum_small * 1e6);
  std::printf("%-44s %9.3f ms\n", "loop of n, no reduction", t_plain_big * 1e3);
  std::printf("%-44s %9.3f ms\n", "loop of n, with a global SUM", t_sum_big * 1e3);
  std::printf("%-44s %9.2f ms\n", "cold first par_loop of a new kernel", t_cold_pl * 1e3);
  std::printf("%-44s %9.2f ms\n", "clBuildProgram + clCreateKernel + launch", t_cold_hand * 1e3);
  std::printf("%2d new kernels, %-32s %9.2f ms\n", batch, "by hand", t_batch_hand * 1e3);
  std::printf("%2d new kernels, %-32s %9.2f ms\n", batch, "parloop, disk cache off", t_batch_off * 1e3);
  std::printf("%2d new kernels, %-32s %9.2f ms\n", batch, "parloop, each stored in the cache", t_batch_on * 1e3);
  std::printf("%-44s %9.1f KB\n", "memory per kernel kept, parloop", kb_kept_pl);
  std::printf("%-44s %9.1f KB\n", "memory per kernel kept, by hand", kb_kept_hand);
  std::printf("%-44s %9.1f KB\n", "memory per kernel made and dropped, parloop", kb_dropped_pl);
  std::printf("%-44s %9.1f KB\n", "memory per kernel made and dropped, by hand", kb_dropped_hand);
  std::printf("%-44s %9.3f ms\n", "gather by computed index, checked", t_big_checked * 1e3);
  std::printf("%-44s %9.3f ms\n", "gather by computed index, unchecked", t_big_unchecked * 1e3);
  std::printf("%-44s %9.2f us\n", "loop of 256 + host read, checked", t_read_checked * 1e6);
  std::printf("%-44s %9.2f us\n", "loop of 256 + host read, unchecked", t_read_unchecked * 1e6);
  for (const trace_row& r : trace_rows) {
    std::printf("tracing %4d pl::let %31.2f ms %7.2f us per let\n", r.lets, r.seconds * 1e3, r.seconds / r.lets * 1e6);
  }

  const double trace_growth =
      (trace_rows.back().seconds / trace_rows.back().lets) / (trace_rows.front().seconds / trace_rows.front().lets);
  std::printf("\nlaunch overhead ratio (parloop / hand-written): %.2f   (goal <= 1.2)\n", t_pl_launch / t_hand_launch);
  std::printf("triad throughput ratio (parloop / better hand-written): %.2f   (goal >= 0.95; better: %s)\n",
              best / t_pl, t_each < t_slice ? "one per item" : "chunked");
  std::printf("reduction ratio per loop (with SUM / without): %.2f small, %.2f large   (goal <= 1.3)\n",
              t_sum_small / t_plain_small, t_sum_big / t_plain_big);
  std::printf("cold path ratio (first par_loop / build + launch by hand): %.2f   (goal <= 1.1)\n",
              t_cold_pl / t_cold_hand);
  std::printf(
      "new kernels ratio (parloop / by hand): %.2f with the disk cache off, %.2f storing each (%ju files)   "
      "(goal <= 1.1)\n",
      t_batch_off / t_batch_hand, t_batch_on / t_batch_hand, stored_files);
  std::printf("index check ratio (checked / PARLOOP_CHECK_INDICES=0): %.2f large, %.2f small with a host read\n",
              t_big_checked / t_big_unchecked, t_read_checked / t_read_unchecked);
  std::printf("tracing, time per let at %d over at %d: %.2f   (linear: about 1)\n", trace_rows.back().lets,
              trace_rows.front().lets, trace_growth);
  std::printf("triad check: max |a - (b + s*c)| = %.3g; SUM check: relative error %.3g; new kernels' check: %.3g\n",
              max_diff, total_error, stored_error);
  return max_diff <= 1e-14 && total_error <= 1e-9 && stored_error <= 1e-14 ? 0 : 1;
}
