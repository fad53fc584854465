// SPDX-License-Identifier: MIT
// What the benchmark programs share: medians of timings, relative agreement, the --csv check,
// and the cost of a global SUM (a triad that also sums its results into a global, against the
// same triad without), measured on any runtime.
#pragma once

#include <parloop/parloop.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parloop_bench {

// Whether `value` is within `tolerance` of `reference`, relatively; a NaN never is.
inline bool agrees(double value, double reference, double tolerance) {
  return std::fabs(value - reference) <= tolerance * std::fabs(reference);
}

// A --csv file's folder must exist: said before minutes of measuring, not after.
inline void check_csv_folder(const std::optional<std::string>& csv) {
  if (!csv) return;
  const std::filesystem::path folder = std::filesystem::path(*csv).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder)) {
    throw std::runtime_error("--csv " + *csv + ": there is no folder " + folder.string());
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of `reps` timings of `body`, in seconds.
inline double median_seconds(int reps, const std::function<void()>& body) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(t);
}

// The median of `reps` runs of `loop` on rt, each waited for, after one run not timed (its
// kernels built, its data on the device).
inline double median_loop_seconds(const parloop::Runtime& rt, int reps, const std::function<void()>& loop) {
  loop();
  rt.synchronize();
  return median_seconds(reps, [&] {
    loop();
    rt.synchronize();
  });
}

// Seconds per loop, with and without the SUM: `launches` loops of `small` elements then one wait
// (launch-bound), and one loop of every element of `points` (bandwidth-bound); timed alternately.
struct sum_cost {
  double plain_small, sum_small, plain_big, sum_big;
  double relative_error;  // of the global after every loop, against the sum on the host
};

inline sum_cost measure_sum(const parloop::Runtime& rt, const parloop::Set& points, int small, int launches, int reps,
                            int big_reps) {
  namespace pl = parloop;
  const int n = points.size();
  std::vector<double> b0(static_cast<std::size_t>(n)), c0(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    b0[static_cast<std::size_t>(i)] = 0.5 + (i % 97) * 0.01;
    c0[static_cast<std::size_t>(i)] = 1.5 - (i % 89) * 0.01;
  }
  pl::Dat<double> a(points), b(points, b0), c(points, c0);
  pl::Global<double> s(rt, 3.0), total(rt, 0.0);
  auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  auto triad_sum = pl::kernel("triad_sum", [](auto a, auto b, auto c, auto s, auto total) {
    auto v = pl::let("v", b + s * c);
    a = v;
    total += v;
  });
  const auto plain_loops = [&](int count, pl::range r) {
    for (int i = 0; i < count; ++i) pl::par_loop(triad, points, r, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
    rt.synchronize();
  };
  const auto sum_loops = [&](int count, pl::range r) {
    for (int i = 0; i < count; ++i) {
      pl::par_loop(triad_sum, points, r, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ), total(pl::INC));
    }
    rt.synchronize();
  };
  plain_loops(2, pl::range{0, n});
  sum_loops(2, pl::range{0, n});
  std::vector<double> plain_small, sum_small, plain_big, sum_big;
  for (int r = 0; r < reps; ++r) {
    plain_small.push_back(median_seconds(1, [&] { plain_loops(launches, pl::range{0, small}); }) / launches);
    sum_small.push_back(median_seconds(1, [&] { sum_loops(launches, pl::range{0, small}); }) / launches);
  }
  for (int r = 0; r < big_reps; ++r) {
    plain_big.push_back(median_seconds(1, [&] { plain_loops(1, pl::range{0, n}); }));
    sum_big.push_back(median_seconds(1, [&] { sum_loops(1, pl::range{0, n}); }));
  }
  double whole = 0.0, part = 0.0;
  for (int i = 0; i < n; ++i) {
    const double v = b0[static_cast<std::size_t>(i)] + 3.0 * c0[static_cast<std::size_t>(i)];
    whole += v;
    if (i < small) part += v;
  }
  const double want = (2.0 + big_reps) * whole + static_cast<double>(reps) * launches * part;
  return {median(plain_small), median(sum_small), median(plain_big), median(sum_big),
          std::abs(total.value() - want) / std::abs(want)};
}

}  // namespace parloop_bench
