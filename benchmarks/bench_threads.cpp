// SPDX-License-Identifier: MIT
// parloop's threads and host backends against plain loops, in one run on this machine's cores:
//  - launch overhead: a triad par_loop of 256 elements (a = b + s * c) on threads and on the
//    host, against the same 256 elements as a plain C++ loop: what a launch costs beyond the work,
//    and what the trace check adds to it (sampled, the default, and every call, against none);
//  - triad throughput over 2^24 doubles on threads against the same triad by hand over the same
//    threads (std::thread, static contiguous chunks, arrays first touched by their thread);
//  - a loop with a global SUM against the same loop without one (common.hpp), small and large.
// Each figure is the median of repeated timings after a warm-up. Usage: bench_threads [threads]
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace pl = parloop;

namespace {

using parloop_bench::median_seconds;

constexpr int small = 256;
constexpr int launches = 20000;
constexpr int reps = 7;

pl::Runtime open(pl::backend_kind kind, int threads) {
  pl::settings s = pl::settings::from_environment();
  s.backend = kind;
  s.threads = threads;
  return pl::Runtime::open(s);
}

// Seconds per 256-element triad par_loop, `launches` of them back to back, under each trace-check
// schedule in turn, alternately: sampled (the default), off, every call.
struct loop_times {
  double sampled, off, every_call;
};
loop_times loop_seconds(pl::Runtime rt) {
  const pl::Set s(rt, small);
  pl::Dat<double> a(s), b(s, std::vector<double>(small, 1.0)), c(s, std::vector<double>(small, 2.0));
  pl::Global<double> scale(rt, 3.0);
  auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  const auto loops = [&] {
    for (int i = 0; i < launches; ++i) pl::par_loop(triad, s, a(pl::WRITE), b(pl::READ), c(pl::READ), scale(pl::READ));
    rt.synchronize();
  };
  loops();
  const pl::trace_checks schedules[] = {pl::trace_checks::sampled, pl::trace_checks::off, pl::trace_checks::every_call};
  std::vector<double> t[3];
  for (int r = 0; r < reps; ++r) {
    for (int m = 0; m < 3; ++m) {
      rt.set_trace_checks(schedules[m]);
      t[m].push_back(median_seconds(1, loops) / launches);
    }
  }
  rt.set_trace_checks(schedules[0]);
  return {parloop_bench::median(t[0]), parloop_bench::median(t[1]), parloop_bench::median(t[2])};
}

// The same 256 elements as a plain loop, through pointers the compiler cannot see through.
double plain_seconds() {
  std::vector<double> a(small), b(small, 1.0), c(small, 2.0);
  double* volatile pa = a.data();
  const double* volatile pb = b.data();
  const double* volatile pc = c.data();
  const auto loops = [&] {
    for (int i = 0; i < launches; ++i) {
      double* x = pa;
      const double *y = pb, *z = pc;
      for (int e = 0; e < small; ++e) x[e] = y[e] + 3.0 * z[e];
    }
  };
  loops();
  return median_seconds(reps, loops) / launches;
}

// A triad over n doubles on `threads` threads (the calling one and threads - 1 std::threads),
// each its own contiguous part, first touched by it: seconds per triad, the workers started
// once, before timing, and spinning between triads.
double hand_triad_seconds(int threads, int n, int repeats) {
  struct part {
    std::vector<double> x, y, z;
  };
  std::vector<part> parts(static_cast<std::size_t>(threads));
  const auto size_of = [&](int t) {
    return static_cast<std::size_t>(static_cast<long long>(n) * (t + 1) / threads -
                                    static_cast<long long>(n) * t / threads);
  };
  const auto touch = [&](int t) {
    part& p = parts[static_cast<std::size_t>(t)];
    p.x.assign(size_of(t), 0.0);
    p.y.assign(size_of(t), 1.0);
    p.z.assign(size_of(t), 2.0);
  };
  const auto triad = [&](int t) {
    part& p = parts[static_cast<std::size_t>(t)];
    for (std::size_t e = 0; e < p.x.size(); ++e) p.x[e] = p.y[e] + 3.0 * p.z[e];
  };
  std::atomic<int> ready{0}, go{0}, done{0};
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) {
    workers.emplace_back([&, t] {
      touch(t);
      ready.fetch_add(1);
      for (int r = 1; r <= repeats; ++r) {
        while (go.load(std::memory_order_acquire) < r) {
        }
        triad(t);
        done.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  touch(0);
  while (ready.load() < threads - 1) {
  }
  std::vector<double> seconds;
  for (int r = 1; r <= repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    go.store(r, std::memory_order_release);
    triad(0);
    while (done.load(std::memory_order_acquire) < r * (threads - 1)) {
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (std::thread& w : workers) w.join();
  return parloop_bench::median(seconds);
}

double triad_seconds(const pl::Runtime& rt, int n, int repeats) {
  const pl::Set s(rt, n);
  pl::Dat<double> a(s), b(s, std::vector<double>(static_cast<std::size_t>(n), 1.0)),
      c(s, std::vector<double>(static_cast<std::size_t>(n), 2.0));
  pl::Global<double> scale(rt, 3.0);
  auto triad = pl::kernel("triad_big", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  const auto once = [&] { pl::par_loop(triad, s, a(pl::WRITE), b(pl::READ), c(pl::READ), scale(pl::READ)); };
  once();
  return median_seconds(repeats, once);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads =
      argc > 1 ? std::atoi(argv[1]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads < 1) {
    std::fprintf(stderr, "bench_threads: the thread count is a positive number, not '%s'\n", argv[1]);
    return 1;
  }
  const pl::Runtime on_threads = open(pl::backend_kind::threads, threads);
  const pl::Runtime on_host = open(pl::backend_kind::host, 1);
  std::printf("parloop threads backend (%s) and host backend against plain loops; median of %d\n",
              on_threads.device_name().c_str(), reps);

  const double plain = plain_seconds();
  const loop_times on_threads_t = loop_seconds(on_threads), on_host_t = loop_seconds(on_host);
  const double threads_loop = on_threads_t.sampled, host_loop = on_host_t.sampled;
  std::printf(
      "launch, %d-element triad: plain loop %.3f us; host %.3f us (+%.3f); threads %.3f us (+%.3f)  "
      "(goal: threads <= 2 us)\n",
      small, plain * 1e6, host_loop * 1e6, (host_loop - plain) * 1e6, threads_loop * 1e6, (threads_loop - plain) * 1e6);
  std::printf(
      "trace checks on that launch: threads sampled (the default) %.3fx unchecked (goal <= 1.03), every call "
      "%.3fx; host sampled %.3fx, every call %.3fx\n",
      threads_loop / on_threads_t.off, on_threads_t.every_call / on_threads_t.off, host_loop / on_host_t.off,
      on_host_t.every_call / on_host_t.off);

  constexpr int n = 1 << 24;
  const double hand = hand_triad_seconds(threads, n, 15), mine = triad_seconds(on_threads, n, 15);
  std::printf(
      "triad of 2^24 doubles on %d threads: by hand %.3f ms (%.1f GB/s), threads %.3f ms (%.1f GB/s): "
      "%.3fx\n",
      threads, hand * 1e3, 24.0 * n / hand / 1e9, mine * 1e3, 24.0 * n / mine / 1e9, mine / hand);

  const pl::Set points(on_threads, n);
  const parloop_bench::sum_cost sc = parloop_bench::measure_sum(on_threads, points, small, launches / 10, reps, 5);
  std::printf("SUM on threads: small loop %.3fx (%.3f -> %.3f us), large loop %.3fx; relative error %.1e\n",
              sc.sum_small / sc.plain_small, sc.plain_small * 1e6, sc.sum_small * 1e6, sc.sum_big / sc.plain_big,
              sc.relative_error);
  return 0;
}
