// SPDX-License-Identifier: MIT
// The host backend against values computed independently here, on random meshes: direct
// and indirect arguments in every access mode, arities 1-4, dims 1-5, globals, ranges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string>
#include <type_traits>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"

namespace pl = parloop;
using parloop_test::check_value;
using parloop_test::check_values;
using parloop_test::permutation_map;
using parloop_test::random_map;
using parloop_test::random_values;

namespace {

constexpr int n_cells = 37;
constexpr int n_edges = 101;

// The dims each case runs with: 1 to 5. Under the sanitizers, TSan's too (PARLOOP_TEST_FEWER_DIMS), 1, 2 and 5
// -- one component, an even and an odd count -- which are the same code paths with other
// counts: the matrix is that build's longest compile, and the plain build runs every dim.
#if PARLOOP_TEST_FEWER_DIMS
using tested_dims = std::integer_sequence<int, 1, 2, 5>;
#else
using tested_dims = std::integer_sequence<int, 1, 2, 3, 4, 5>;
#endif

// On a device (PARLOOP_TEST_BACKEND) every case's kernel is compiled once per dim, type and
// arity: hundreds of compiles, each about a second on PoCL with two cores, which made this test
// the longest of the suite. There a case runs dims 1, 2 and 5 (the host runs all five), and a
// case over arities one of them per arity, rotating with the type (`rotation`, arity + type):
// every pair of type and arity, type and dim, arity and dim still meets in the matrix, in a
// third of those cases' compiles.
bool on_device() {
  static const bool device = !pl::runs_lambdas(parloop_test::tested_backend(pl::backend_kind::host));
  return device;
}

constexpr int device_dims[] = {1, 2, 5};

bool runs_dim(int d, int rotation) {
  if (!on_device()) return true;
  if (rotation < 0) return std::find(std::begin(device_dims), std::end(device_dims), d) != std::end(device_dims);
  return d == device_dims[rotation % std::size(device_dims)];
}

template <class F>
void for_dims(F&& f, int rotation = -1) {
  [&]<int... D>(std::integer_sequence<int, D...>) {
    ((runs_dim(D, rotation) ? f(std::integral_constant<int, D>{}) : void()), ...);
  }
  (tested_dims{});
}

// The runtime the tests run on: the host backend; with PARLOOP_TEST_BACKEND=threads the threads
// backend, whose block size rotates with `variant` (a block of one element, blocks that end
// inside a map's rows, OP2's 256); or with PARLOOP_TEST_BACKEND=opencl|cuda a device, whose
// strategy rotates with `variant` so that every strategy meets every access pattern, dim, arity
// and type somewhere in the matrix without compiling it thrice.
pl::Runtime test_runtime(int variant) {
  const pl::backend_kind backend = parloop_test::tested_backend(pl::backend_kind::host);
  if (backend == pl::backend_kind::host) return pl::Runtime::open(pl::backend_kind::host);
  if (backend == pl::backend_kind::threads) {
    pl::Runtime rt = pl::Runtime::open(backend);
    const int blocks[] = {1, 7, 64, 256};
    rt.state()->thread_block = blocks[static_cast<std::size_t>(variant) % std::size(blocks)];
    return rt;
  }
  pl::Runtime rt = pl::Runtime::open(backend);
  const pl::strategy strategies[] = {pl::split_n_across_workgroups{64}, pl::grid_stride{32, 2}, pl::chunked{8, 16},
                                     pl::vectors_across_workgroups{32, 2}, pl::vectors_across_workgroups{16, 4}};
  rt.set_default_strategy(strategies[static_cast<std::size_t>(variant) % std::size(strategies)]);
  return rt;
}

template <class T>
constexpr int type_index() {
  return std::is_same_v<T, float> ? 0 : std::is_same_v<T, double> ? 1 : std::is_same_v<T, std::int32_t> ? 2 : 3;
}

}  // namespace

TEMPLATE_TEST_CASE("direct loops: a = b + s * c", "[host][direct]", float, double, std::int32_t, std::int64_t) {
  using T = TestType;
  for_dims([]<int D>(std::integral_constant<int, D>) {
    const pl::Runtime rt = test_runtime(D + type_index<T>());
    const pl::Set s(rt, n_edges);
    const auto b0 = random_values<T>(n_edges * D), c0 = random_values<T>(n_edges * D);
    pl::Dat<T, D> a(s), b(s, b0), c(s, c0);
    pl::Global<T> scale(rt, T(3));
    auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) {
      for (int k = 0; k < a.size(); ++k) a[k] = b[k] + s * c[k];
    });
    pl::par_loop(triad, s, a(pl::WRITE), b(pl::READ), c(pl::READ), scale(pl::READ));
    std::vector<T> want(b0.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = static_cast<T>(b0[i] + T(3) * c0[i]);
    check_values<T>(a.host(), want);
  });
}

TEMPLATE_TEST_CASE("indirect READ through a whole map and through single slots", "[host][indirect]", float, double,
                   std::int32_t, std::int64_t) {
  using T = TestType;
  for (int arity = 1; arity <= 4; ++arity) {
    for_dims(
        [arity]<int D>(std::integral_constant<int, D>) {
          const pl::Runtime rt = test_runtime(D + arity + type_index<T>());
          const pl::Set cells(rt, n_cells), edges(rt, n_edges);
          const auto mv = random_map(n_edges, n_cells, arity);
          const pl::Map m(edges, cells, arity, mv);
          const auto q0 = random_values<T>(n_cells * D);
          pl::Dat<T, D> q(cells, q0), out(edges), out2(edges);

          auto weighted = pl::kernel("weighted", [](auto q, auto out) {
            for (int k = 0; k < out.size(); ++k) {
              auto sum = pl::let(q[0][k]);
              for (int j = 1; j < q.size(); ++j) sum += (j + 1) * q[j][k];
              out[k] = sum;
            }
          });
          pl::par_loop(weighted, edges, q(pl::READ, m), out(pl::WRITE));

          auto first_last = pl::kernel("first_last", [](auto first, auto last, auto out) {
            for (int k = 0; k < out.size(); ++k) out[k] = first[k] - 2 * last[k];
          });
          pl::par_loop(first_last, edges, q(pl::READ, m, 0), q(pl::READ, m, arity - 1), out2(pl::WRITE));

          std::vector<T> want(n_edges * D), want2(n_edges * D);
          for (int e = 0; e < n_edges; ++e) {
            for (int k = 0; k < D; ++k) {
              T sum = q0[mv[e * arity] * D + k];
              for (int j = 1; j < arity; ++j) sum += static_cast<T>((j + 1) * q0[mv[e * arity + j] * D + k]);
              want[e * D + k] = sum;
              want2[e * D + k] = static_cast<T>(q0[mv[e * arity] * D + k] - 2 * q0[mv[e * arity + arity - 1] * D + k]);
            }
          }
          check_values<T>(out.host(), want);
          check_values<T>(out2.host(), want2);
        },
        arity + type_index<T>());
  }
}

TEMPLATE_TEST_CASE("indirect INC accumulates every contribution", "[host][indirect][inc]", float, double, std::int32_t,
                   std::int64_t) {
  using T = TestType;
  for (int arity = 1; arity <= 4; ++arity) {
    for_dims(
        [arity]<int D>(std::integral_constant<int, D>) {
          const pl::Runtime rt = test_runtime(D + arity + type_index<T>());
          const pl::Set cells(rt, n_cells), edges(rt, n_edges);
          const auto mv = random_map(n_edges, n_cells, arity);
          const pl::Map m(edges, cells, arity, mv);
          const auto x0 = random_values<T>(n_edges * D), r0 = random_values<T>(n_cells * D);
          pl::Dat<T, D> x(edges, x0), r(cells, r0), s(cells, r0);

          auto spread = pl::kernel("spread", [](auto x, auto r) {
            for (int j = 0; j < r.size(); ++j)
              for (int k = 0; k < x.size(); ++k) r[j][k] += (j + 1) * x[k];
          });
          pl::par_loop(spread, edges, x(pl::READ), r(pl::INC, m));

          auto two_slots = pl::kernel("two_slots", [](auto x, auto a, auto b) {
            for (int k = 0; k < x.size(); ++k) {
              a[k] += x[k];
              b[k] -= 3 * x[k];
            }
          });
          pl::par_loop(two_slots, edges, x(pl::READ), s(pl::INC, m, 0), s(pl::INC, m, arity - 1));

          std::vector<T> want = r0, want2 = r0;
          for (int e = 0; e < n_edges; ++e) {
            for (int k = 0; k < D; ++k) {
              for (int j = 0; j < arity; ++j)
                want[mv[e * arity + j] * D + k] += static_cast<T>((j + 1) * x0[e * D + k]);
              want2[mv[e * arity] * D + k] += x0[e * D + k];
              want2[mv[e * arity + arity - 1] * D + k] -= static_cast<T>(3 * x0[e * D + k]);
            }
          }
          check_values<T>(r.host(), want);
          check_values<T>(s.host(), want2);
        },
        arity + type_index<T>());
  }
}

TEMPLATE_TEST_CASE("indirect WRITE and RW through collision-free maps", "[host][indirect]", float, double, std::int32_t,
                   std::int64_t) {
  using T = TestType;
  for (int arity = 1; arity <= 4; ++arity) {
    for_dims(
        [arity]<int D>(std::integral_constant<int, D>) {
          const pl::Runtime rt = test_runtime(D + arity + type_index<T>());
          const int n_targets = n_edges * arity;
          const pl::Set edges(rt, n_edges), targets(rt, n_targets);
          const auto mv = permutation_map(n_targets);
          const pl::Map m(edges, targets, arity, mv);
          const auto x0 = random_values<T>(n_edges * D), r0 = random_values<T>(n_targets * D);
          pl::Dat<T, D> x(edges, x0), w(targets, r0), rw(targets, r0);

          auto scatter = pl::kernel("scatter", [](auto x, auto w) {
            for (int j = 0; j < w.size(); ++j)
              for (int k = 0; k < x.size(); ++k) w[j][k] = x[k] + j;
          });
          pl::par_loop(scatter, edges, x(pl::READ), w(pl::WRITE, m));

          auto scale = pl::kernel("scale", [](auto x, auto r) {
            for (int k = 0; k < x.size(); ++k) r[k] = r[k] * 2 - x[k];
          });
          pl::par_loop(scale, edges, x(pl::READ), rw(pl::RW, m, arity - 1));

          std::vector<T> want = r0, want_rw = r0;
          for (int e = 0; e < n_edges; ++e) {
            for (int k = 0; k < D; ++k) {
              for (int j = 0; j < arity; ++j) want[mv[e * arity + j] * D + k] = static_cast<T>(x0[e * D + k] + j);
              T& t = want_rw[mv[e * arity + arity - 1] * D + k];
              t = static_cast<T>(t * 2 - x0[e * D + k]);
            }
          }
          check_values<T>(w.host(), want);
          check_values<T>(rw.host(), want_rw);
        },
        arity + type_index<T>());
  }
}

TEMPLATE_TEST_CASE("indirect MIN and MAX into dats", "[host][indirect][minmax]", float, double, std::int32_t,
                   std::int64_t) {
  using T = TestType;
  for (int arity = 1; arity <= 4; ++arity) {
    for_dims(
        [arity]<int D>(std::integral_constant<int, D>) {
          const pl::Runtime rt = test_runtime(D + arity + type_index<T>());
          const pl::Set cells(rt, n_cells), edges(rt, n_edges);
          const auto mv = random_map(n_edges, n_cells, arity);
          const pl::Map m(edges, cells, arity, mv);
          const auto x0 = random_values<T>(n_edges * D), r0 = random_values<T>(n_cells * D);
          pl::Dat<T, D> x(edges, x0), lo(cells, r0), hi(cells, r0);

          auto bounds = pl::kernel("bounds", [](auto x, auto lo, auto hi) {
            for (int k = 0; k < x.size(); ++k) {
              lo[k] = pl::min(lo[k], x[k]);
              hi[k] = pl::max(x[k] * 2, hi[k]);
            }
          });
          pl::par_loop(bounds, edges, x(pl::READ), lo(pl::MIN, m, 0), hi(pl::MAX, m, arity - 1));

          std::vector<T> want_lo = r0, want_hi = r0;
          for (int e = 0; e < n_edges; ++e) {
            for (int k = 0; k < D; ++k) {
              T& l = want_lo[mv[e * arity] * D + k];
              l = std::min(l, x0[e * D + k]);
              T& h = want_hi[mv[e * arity + arity - 1] * D + k];
              h = std::max<T>(h, static_cast<T>(x0[e * D + k] * 2));
            }
          }
          check_values<T>(lo.host(), want_lo);
          check_values<T>(hi.host(), want_hi);
        },
        arity + type_index<T>());
  }
}

TEMPLATE_TEST_CASE("global reductions: INC, MIN, MAX of dims 1-3", "[host][global]", float, double, std::int32_t,
                   std::int64_t) {
  using T = TestType;
  const pl::Runtime rt = test_runtime(type_index<T>());
  const pl::Set cells(rt, n_cells);
  const auto x0 = random_values<T>(n_cells * 3);
  pl::Dat<T, 3> x(cells, x0);
  pl::Global<T> total(rt, T(5));
  pl::Global<T, 2> lo(rt, {T(0), T(100)});
  pl::Global<T, 3> hi(rt, {T(-100), T(-100), T(-100)});
  pl::Global<T> count(rt, T(0));

  auto reduce = pl::kernel("reduce", [](auto x, auto total, auto lo, auto hi, auto count) {
    for (int k = 0; k < 3; ++k) {
      total += x[k];
      hi[k] = pl::max(hi[k], x[k]);
    }
    lo[0] = pl::min(lo[0], x[0] - x[1]);
    lo[1] = pl::min(x[2], lo[1]);
    count += 1;
  });
  pl::par_loop(reduce, cells, x(pl::READ), total(pl::INC), lo(pl::MIN), hi(pl::MAX), count(pl::INC));

  T want_total = 5, want_lo0 = 0, want_lo1 = 100;
  std::array<T, 3> want_hi{-100, -100, -100};
  for (int c = 0; c < n_cells; ++c) {
    for (int k = 0; k < 3; ++k) {
      want_total += x0[c * 3 + k];
      want_hi[k] = std::max(want_hi[k], x0[c * 3 + k]);
    }
    want_lo0 = std::min<T>(want_lo0, static_cast<T>(x0[c * 3] - x0[c * 3 + 1]));
    want_lo1 = std::min(want_lo1, x0[c * 3 + 2]);
  }
  check_value(total.value(), want_total);
  check_value(lo.values()[0], want_lo0);
  check_value(lo.values()[1], want_lo1);
  for (int k = 0; k < 3; ++k) check_value(hi.values()[k], want_hi[k]);
  CHECK(count.value() == T(n_cells));
}

TEST_CASE("a subrange touches only its elements", "[host][range]") {
  const pl::Runtime rt = test_runtime(1);
  const pl::Set s(rt, 50);
  pl::Dat<double> a(s, std::vector<double>(50, 1.0));
  pl::Global<double> sum(rt, 0.0);
  auto k = pl::kernel("mark", [](auto a, auto sum) {
    a = a * 10 + 1;
    sum += a;
  });
  pl::par_loop(k, s, pl::range{10, 17}, a(pl::RW), sum(pl::INC));
  for (int i = 0; i < 50; ++i) CHECK(a.host()[i] == (i >= 10 && i < 17 ? 11.0 : 1.0));
  CHECK(sum.value() == 7 * 11.0);

  pl::par_loop(k, s, pl::range{50, 50}, a(pl::RW), sum(pl::INC));
  pl::par_loop(k, s, pl::range{0, 0}, a(pl::RW), sum(pl::INC));
  CHECK(sum.value() == 7 * 11.0);
}

TEST_CASE("an empty set runs nothing and leaves globals alone", "[host][empty]") {
  const pl::Runtime rt = test_runtime(2);
  const pl::Set empty(rt, 0), cells(rt, 4);
  const pl::Map m(empty, cells, 3, std::vector<pl::index_t>{});
  pl::Dat<float, 2> x(empty), r(cells, std::vector<float>(8, 2.0f));
  pl::Global<float> lo(rt, 7.0f);
  auto k = pl::kernel("nothing", [](auto x, auto r, auto lo) {
    r[1][0] += x[0];
    lo = pl::min(lo, x[1]);
  });
  pl::par_loop(k, empty, x(pl::READ), r(pl::INC, m), lo(pl::MIN));
  CHECK(lo.value() == 7.0f);
  for (float v : r.host()) CHECK(v == 2.0f);
}

TEST_CASE("the design's flux and update loops", "[host][example]") {
  const pl::Runtime rt = test_runtime(0);
  const int nc = 23, ne = 61;
  const pl::Set cells(rt, nc), edges(rt, ne);
  const auto ec = random_map(ne, nc, 2);
  const pl::Map e2c(edges, cells, 2, ec);
  const auto q0 = random_values<double>(nc * 4);
  pl::Dat<double, 4> q(cells, q0), res(cells);
  pl::Global<double> rms(rt, 0.0);

  auto flux = parloop_test::flux_kernel();
  pl::par_loop(flux, edges, q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));
  auto update = pl::kernel("update", [](auto r, auto rms) {
    for (int k = 0; k < 4; ++k) {
      rms += r[k] * r[k];
      r[k] = 0.0;
    }
  });
  pl::par_loop(update, cells, res(pl::RW), rms(pl::INC));

  std::vector<double> r(nc * 4, 0.0);
  for (int e = 0; e < ne; ++e) {
    for (int k = 0; k < 4; ++k) {
      const double f = 0.5 * (q0[ec[2 * e] * 4 + k] + q0[ec[2 * e + 1] * 4 + k]);
      r[ec[2 * e] * 4 + k] += f;
      r[ec[2 * e + 1] * 4 + k] -= f;
    }
  }
  double want = 0.0;
  for (double v : r) want += v * v;
  check_value(rms.value(), want);
  for (double v : res.host()) CHECK(v == 0.0);
}
