// SPDX-License-Identifier: MIT
// A loop over a subset of half a set against the same loop over the whole set, in one run, on the
// runtime's backend (PARLOOP_BACKEND): the goal is at most ~0.55x the whole set's time. Three
// loops -- a direct triad, a gather through a map, an increment through a map (coloured over the
// subset on a device) -- and three halves: the first half (contiguous), every other element, and
// a random half. Each figure is the median of repeated timings after a warm-up, the device waited
// for after each. Usage: bench_subset [elements (2^22)] [reps (15)]
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace pl = parloop;

namespace {

struct half {
  const char* name;
  std::vector<pl::index_t> indices;
};

std::vector<half> halves(int n) {
  std::vector<half> out{{"first half", {}}, {"every other", {}}, {"random half", {}}};
  std::mt19937 rng(11);
  for (pl::index_t i = 0; i < n; ++i) {
    if (i < n / 2) out[0].indices.push_back(i);
    if (i % 2 == 0) out[1].indices.push_back(i);
    if (rng() % 2 == 0) out[2].indices.push_back(i);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 22;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  if (n < 2 || reps < 1) {
    std::fprintf(stderr, "usage: bench_subset [elements >= 2] [reps >= 1]\n");
    return 2;
  }
  const pl::Runtime rt = pl::Runtime::open();
  const pl::Set cells(rt, n, "cells"), edges(rt, n, "edges");
  std::mt19937 rng(5);
  std::vector<pl::index_t> e2c(2 * static_cast<std::size_t>(n));
  // Each edge between a cell and a nearby one: a mesh's locality, so that a subset's cost is
  // the subset's, not cache misses a random map would add to both.
  for (pl::index_t e = 0; e < n; ++e) {
    e2c[2 * static_cast<std::size_t>(e)] = e;
    e2c[2 * static_cast<std::size_t>(e) + 1] =
        static_cast<pl::index_t>((e + 1 + static_cast<pl::index_t>(rng() % 64)) % n);
  }
  const pl::Map ecell(edges, cells, 2, e2c, "ecell");
  pl::Dat<double> a(edges, "a"), b(edges, std::vector<double>(static_cast<std::size_t>(n), 1.0), "b");
  pl::Dat<double> c(edges, std::vector<double>(static_cast<std::size_t>(n), 2.0), "c");
  pl::Dat<double> q(cells, std::vector<double>(static_cast<std::size_t>(n), 0.5), "q"), r(cells, "r");
  pl::Global<double> s(rt, 3.0, "s");
  const auto triad = pl::kernel("subset_triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
  const auto gather = pl::kernel("subset_gather", [](auto q0, auto q1, auto a) { a = q0 - q1; });
  const auto scatter = pl::kernel("subset_scatter", [](auto b, auto r0, auto r1) {
    r0 += b;
    r1 -= b;
  });

  std::printf("bench_subset on %s (%s): %d elements, median of %d\n", std::string(pl::backend_name(rt.kind())).c_str(),
              rt.device_name().c_str(), n, reps);
  const auto seconds = [&](const std::function<void()>& loop) {
    return parloop_bench::median_loop_seconds(rt, reps, loop);
  };
  const double whole_triad =
      seconds([&] { pl::par_loop(triad, edges, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ)); });
  const double whole_gather =
      seconds([&] { pl::par_loop(gather, edges, q(pl::READ, ecell, 0), q(pl::READ, ecell, 1), a(pl::WRITE)); });
  const double whole_scatter =
      seconds([&] { pl::par_loop(scatter, edges, b(pl::READ), r(pl::INC, ecell, 0), r(pl::INC, ecell, 1)); });
  std::printf("%-12s %12s %12s %12s  (ms; ratio to the whole set)\n", "", "triad", "gather", "scatter INC");
  std::printf("%-12s %12.3f %12.3f %12.3f\n", "whole set", 1e3 * whole_triad, 1e3 * whole_gather, 1e3 * whole_scatter);
  for (const half& h : halves(n)) {
    const pl::Subset sub(edges, h.indices, h.name);
    const double t = seconds([&] { pl::par_loop(triad, sub, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ)); });
    const double g =
        seconds([&] { pl::par_loop(gather, sub, q(pl::READ, ecell, 0), q(pl::READ, ecell, 1), a(pl::WRITE)); });
    const double i =
        seconds([&] { pl::par_loop(scatter, sub, b(pl::READ), r(pl::INC, ecell, 0), r(pl::INC, ecell, 1)); });
    std::printf("%-12s %7.3f %.2fx %7.3f %.2fx %7.3f %.2fx\n", h.name, 1e3 * t, t / whole_triad, 1e3 * g,
                g / whole_gather, 1e3 * i, i / whole_scatter);
  }
  return 0;
}
