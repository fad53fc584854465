// SPDX-License-Identifier: MIT
// parloop on OpenCL against hand-written OpenCL, in one run on one device:
//  - launch overhead: a small par_loop against clSetKernelArg + clEnqueueNDRangeKernel, by
//    hand, of the same generated kernel (built from the same source): parloop's own cost;
//  - triad throughput (a = b + s * c, 2^24 doubles) against the better of two hand-written
//    triads: one element per work-item, and a chunked loop of one work-item per slice.
// Each figure is the median of repeated timings after a warm-up; ratios are parloop's time
// over the hand-written time (below 1: parloop is faster). Usage: bench_opencl [log2 n]
#include <parloop/parloop.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace pl = parloop;
namespace ocl = parloop::backend::opencl;

namespace {

using clock_type = std::chrono::steady_clock;

// The median of `reps` timings of `body`, in seconds.
double median_seconds(int reps, const std::function<void()>& body) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = clock_type::now();
    body();
    t.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

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
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int n = 1 << log2_n;
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
  const std::string generated =
      pl::codegen::generate(*triad.traced(a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ)),
                            pl::codegen::dialect_kind::opencl, pl::split_n_across_workgroups{256})
          .text;
  hand_kernel same(ctx, generated.c_str(), "triad");

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
        pl::par_loop(triad, points, pl::split_n_across_workgroups{256}, pl::range{0, small}, a(pl::WRITE),
                     b(pl::READ), c(pl::READ), s(pl::READ));
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

  const double bytes = 3.0 * 8.0 * n;
  const double best = std::min(t_each, t_slice);
  std::printf("%-44s %12s %10s\n", "measure", "time", "GB/s");
  std::printf("%-44s %9.2f us\n", "launch, parloop par_loop (256 elements)", t_pl_launch * 1e6);
  std::printf("%-44s %9.2f us\n", "launch, same kernel, set args + enqueue by hand", t_hand_launch * 1e6);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, parloop (default strategy)", t_pl * 1e3, bytes / t_pl * 1e-9);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, hand-written one element per item", t_each * 1e3, bytes / t_each * 1e-9);
  std::printf("%-44s %9.3f ms %10.1f\n", "triad, hand-written chunked (64 per item)", t_slice * 1e3, bytes / t_slice * 1e-9);
  std::printf("\nlaunch overhead ratio (parloop / hand-written): %.2f   (goal <= 1.2)\n", t_pl_launch / t_hand_launch);
  std::printf("triad throughput ratio (parloop / better hand-written): %.2f   (goal >= 0.95; better: %s)\n",
              best / t_pl, t_each < t_slice ? "one per item" : "chunked");
  std::printf("triad check: max |a - (b + s*c)| = %.3g\n", max_diff);
  return max_diff <= 1e-14 ? 0 : 1;
}
