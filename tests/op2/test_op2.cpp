// SPDX-License-Identifier: MIT
// OP2's API on the backend PARLOOP_BACKEND names: each call, against the same computation as
// plain loops (what OP2's sequential library computes), on a random mesh. Devices add increments
// through maps in another order: values agree to 1e-12 relative.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../scoped_env.hpp"
#include "../temporary_folder.hpp"

// The constants the kernels read, declared before OP2's header as OP2 applications do.
double weight, factor, offset[3];
int shift;

#include "op_profile.h"
#include "op_seq.h"

#include "user_types.h"

#include "accumulate.h"
#include "bump.h"
#include "cell_stats.h"
#include "edge_flux.h"
#include "guarded.h"
#include "numbers.h"
#include "optional.h"
#include "scale.h"
#include "shout.h"
#include "std_math.h"
#include "vector_arrays.h"
#include "vector_flux.h"
#include "where_max.h"
#include "with_helper.h"

namespace {

using parloop_test::scoped_env;
using parloop_test::temporary_folder;

bool on_device() {
  const char* b = std::getenv("PARLOOP_BACKEND");
  return b != nullptr && (std::string(b) == "opencl" || std::string(b) == "cuda");
}

// op_init to op_exit around a test, its errors thrown.
struct op2_program {
  op2_program() {
    parloop::op2::throw_errors(true);
    op_init(0, nullptr, 0);
  }
  ~op2_program() { op_exit(); }
  op2_program(const op2_program&) = delete;
  op2_program& operator=(const op2_program&) = delete;
};

// A random mesh: nodes with x, cells with q, edges joining two random cells and two random nodes.
struct mesh {
  explicit mesh(int cells_count, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    nodes_count = cells_count / 2 + 1;
    edges_count = 3 * cells_count;
    for (int i = 0; i < nodes_count; ++i) x.push_back(value(random));
    for (int i = 0; i < 2 * cells_count; ++i) q.push_back(value(random));
    std::uniform_int_distribution<int> cell(0, cells_count - 1), node(0, nodes_count - 1);
    for (int e = 0; e < edges_count; ++e) {
      ecell.insert(ecell.end(), {cell(random), cell(random)});
      enode.insert(enode.end(), {node(random), node(random)});
    }
    this->cells_count = cells_count;
  }
  int nodes_count, cells_count, edges_count;
  std::vector<double> x, q;
  std::vector<int> ecell, enode;
};

struct declared {
  explicit declared(mesh& m) {
    nodes = op_decl_set(m.nodes_count, "nodes");
    cells = op_decl_set(m.cells_count, "cells");
    edges = op_decl_set(m.edges_count, "edges");
    pecell = op_decl_map(edges, cells, 2, m.ecell.data(), "pecell");
    penode = op_decl_map(edges, nodes, 2, m.enode.data(), "penode");
    p_x = op_decl_dat(nodes, 1, "double", m.x.data(), "p_x");
    p_q = op_decl_dat(cells, 2, "double", m.q.data(), "p_q");
    p_r = op_decl_dat(cells, 2, "double", static_cast<double*>(nullptr), "p_r");
  }
  op_set nodes, cells, edges;
  op_map pecell, penode;
  op_dat p_x, p_q, p_r;
};

// The flux as plain loops, in edge order.
std::vector<double> plain_flux(const mesh& m) {
  std::vector<double> r(2 * static_cast<std::size_t>(m.cells_count), 0.0);
  for (int e = 0; e < m.edges_count; ++e) {
    const int c1 = m.ecell[2 * e], c2 = m.ecell[2 * e + 1], n1 = m.enode[2 * e], n2 = m.enode[2 * e + 1];
    const double f = weight * (m.q[2 * c1] - m.q[2 * c2]) + (m.x[n1] - m.x[n2]);
    const double p = m.q[2 * c1 + 1] * m.q[2 * c2 + 1];
    r[2 * c1] += f;
    r[2 * c2] -= f;
    r[2 * c1 + 1] += p;
    r[2 * c2 + 1] += p;
  }
  return r;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-12).margin(1e-12));
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("op2: loops through maps, slot by slot and as vectors, give plain loops' answers", "[op2]") {
  op2_program program;
  mesh m(500, 1);
  declared d(m);
  weight = 0.75;
  op_decl_const(1, "double", &weight);
  op_par_loop(edge_flux, "edge_flux", d.edges, op_arg_dat(d.p_x, 0, d.penode, 1, "double", OP_READ),
              op_arg_dat(d.p_x, 1, d.penode, 1, "double", OP_READ),
              op_arg_dat(d.p_q, 0, d.pecell, 2, "double", OP_READ),
              op_arg_dat(d.p_q, 1, d.pecell, 2, "double", OP_READ), op_arg_dat(d.p_r, 0, d.pecell, 2, "double", OP_INC),
              op_arg_dat(d.p_r, 1, d.pecell, 2, "double", OP_INC));
  std::vector<double> got(2 * static_cast<std::size_t>(m.cells_count));
  op_fetch_data(d.p_r, got.data());
  const std::vector<double> want = plain_flux(m);
  check_close(got, want);

  op_dat p_v = op_decl_dat(d.cells, 2, "double", static_cast<double*>(nullptr), "p_v");
  op_par_loop(vector_flux, "vector_flux", d.edges, op_arg_dat(d.p_x, -2, d.penode, 1, "double", OP_READ),
              op_arg_dat(d.p_q, -2, d.pecell, 2, "double", OP_READ),
              op_arg_dat(p_v, -2, d.pecell, 2, "double", OP_INC));
  op_fetch_data(p_v, got.data());
  check_close(got, want);
  op_dat p_w = op_decl_dat(d.cells, 2, "double", static_cast<double*>(nullptr), "p_w");
  op_par_loop(vector_arrays, "vector_arrays", d.edges, op_arg_dat(d.p_x, -2, d.penode, 1, "double", OP_READ),
              op_arg_dat(d.p_q, -2, d.pecell, 2, "double", OP_READ),
              op_arg_dat(p_w, -2, d.pecell, 2, "double", OP_INC));
  op_fetch_data(p_w, got.data());
  check_close(got, want);
  // The user's arrays are copies: the loops left them as they were.
  CHECK(m.q == mesh(500, 1).q);
}

TEST_CASE("op2: OP_RW through a map whose targets meet changes each target one element at a time", "[op2]") {
  op2_program program;
  mesh m(300, 2);
  declared d(m);
  op_dat hits = op_decl_dat(d.cells, 1, "double", static_cast<double*>(nullptr), "hits");
  op_par_loop(bump, "bump", d.edges, op_arg_dat(hits, 0, d.pecell, 1, "double", OP_RW));
  op_par_loop(bump, "bump", d.edges, op_arg_dat(hits, 1, d.pecell, 1, "double", OP_RW));
  // Every serial order gives each cell the number of edge ends on it (small integers: exact).
  std::vector<double> want(static_cast<std::size_t>(m.cells_count), 0.0);
  for (int c : m.ecell) want[static_cast<std::size_t>(c)] += 1.0;
  std::vector<double> got(want.size());
  op_fetch_data(hits, got.data());
  CHECK(got == want);
}

TEST_CASE("op2: globals are read, and reduced into from the user's variables", "[op2]") {
  op2_program program;
  mesh m(700, 2);
  declared d(m);
  int scale_by = 3, count = 5;
  double sum = 10.0, lo = 0.25, hi = -2.0;
  op_par_loop(cell_stats, "cell_stats", d.cells, op_arg_dat(d.p_q, -1, OP_ID, 2, "double", OP_READ),
              op_arg_gbl(&scale_by, 1, "int", OP_READ), op_arg_gbl(&sum, 1, "double", OP_INC),
              op_arg_gbl(&lo, 1, "double", OP_MIN), op_arg_gbl(&hi, 1, "double", OP_MAX),
              op_arg_gbl(&count, 1, "int", OP_INC));
  double want_sum = 10.0, want_lo = 0.25, want_hi = -2.0;
  for (int c = 0; c < m.cells_count; ++c) {
    want_sum += m.q[2 * c] * 3;
    want_lo = std::min(want_lo, m.q[2 * c + 1]);
    want_hi = std::max(want_hi, m.q[2 * c]);
  }
  CHECK(sum == Approx(want_sum).epsilon(1e-12));
  CHECK(lo == want_lo);
  CHECK(hi == want_hi);
  CHECK(count == 5 + m.cells_count);
  CHECK(scale_by == 3);
}

TEST_CASE("op2: a global's storage is its loop's, so variables at ever new addresses leave nothing behind", "[op2]") {
  op2_program program;
  mesh m(300, 2);
  declared d(m);
  struct variables {
    int scale_by = 2, count = 0;
    double sum = 0.0, lo = 1e9, hi = -1e9;
  };
  // Each time step's variables somewhere else, all alive at once: every address is new.
  std::vector<std::unique_ptr<variables>> steps;
  for (int step = 0; step < 40; ++step) {
    variables& v = *steps.emplace_back(std::make_unique<variables>());
    v.sum = step;
    op_par_loop(cell_stats, "cell_stats", d.cells, op_arg_dat(d.p_q, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(&v.scale_by, 1, "int", OP_READ), op_arg_gbl(&v.sum, 1, "double", OP_INC),
                op_arg_gbl(&v.lo, 1, "double", OP_MIN), op_arg_gbl(&v.hi, 1, "double", OP_MAX),
                op_arg_gbl(&v.count, 1, "int", OP_INC));
  }
  double want_sum = 0.0;
  for (int c = 0; c < m.cells_count; ++c) want_sum += m.q[2 * c] * 2;
  for (int step = 0; step < 40; ++step) {
    CHECK(steps[std::size_t(step)]->sum == Approx(step + want_sum).epsilon(1e-12));
    CHECK(steps[std::size_t(step)]->count == m.cells_count);
  }
  // One storage per place among a loop's globals of one type: two ints, three doubles.
  CHECK(parloop::op2::program::current("test").globals.size() == 5);
}

TEST_CASE("op2: a kernel calls C's math by its std:: names on every backend", "[op2]") {
  op2_program program;
  mesh m(500, 4);
  declared d(m);
  int rounded = 2;
  op_par_loop(std_math, "std_math", d.cells, op_arg_dat(d.p_q, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(d.p_r, -1, OP_ID, 2, "double", OP_WRITE), op_arg_gbl(&rounded, 1, "int", OP_MIN));
  std::vector<double> got(2 * static_cast<std::size_t>(m.cells_count));
  op_fetch_data(d.p_r, got.data());
  int want_rounded = 2;
  for (int c = 0; c < m.cells_count; ++c) {
    const double q0 = m.q[2 * c], q1 = m.q[2 * c + 1];
    CHECK(got[2 * c] == Approx(std::sqrt(std::fabs(q0)) + std::max(q1, 0.25)).epsilon(1e-15));
    CHECK(got[2 * c + 1] == std::min(q0, q1));
    want_rounded = std::min(want_rounded, static_cast<int>(std::floor(4.0 * q0)));
  }
  CHECK(rounded == want_rounded);
}

TEST_CASE("op2: a direct OP_INC argument holds the element's value, as OP2 hands it", "[op2]") {
  op2_program program;
  const std::vector<double> u0{1.0, 2.0, 3.0, 4.0}, d0{0.5, -1.0, 0.25, 2.0};
  op_set s = op_decl_set(4, "s");
  op_dat u = op_decl_dat(s, 1, "double", u0.data(), "u");
  op_dat du = op_decl_dat(s, 1, "double", d0.data(), "du");
  double squares = 0.0;
  op_par_loop(accumulate, "accumulate", s, op_arg_dat(u, -1, OP_ID, 1, "double", OP_INC),
              op_arg_dat(du, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&squares, 1, "double", OP_INC));
  std::vector<double> got(4);
  op_fetch_data(u, got.data());
  CHECK(got == std::vector<double>{1.5, 1.0, 3.25, 6.0});
  CHECK(squares == Approx(1.5 * 1.5 + 1.0 + 3.25 * 3.25 + 36.0).epsilon(1e-15));
}

TEST_CASE("op2: op_arg_idx gives elements' numbers as the user declared them", "[op2]") {
  op2_program program;
  mesh m(300, 3);
  declared d(m);
  op_dat out = op_decl_dat(d.edges, 2, "int", static_cast<int*>(nullptr), "out");
  // Renumbered for locality at the first loop: the numbers stay the user's.
  op_par_loop(numbers, "numbers", d.edges, op_arg_idx(-1, OP_ID), op_arg_idx(1, d.pecell),
              op_arg_dat(out, -1, OP_ID, 2, "int", OP_WRITE));
  std::vector<int> got(2 * static_cast<std::size_t>(m.edges_count));
  op_fetch_data(out, got.data());
  for (int e = 0; e < m.edges_count; ++e) {
    CHECK(got[2 * e] == e);
    CHECK(got[2 * e + 1] == m.ecell[2 * e + 1]);
  }
}

TEST_CASE("op2: optional arguments left out are not read", "[op2]") {
  op2_program program;
  const std::vector<double> a0{1.0, 2.0, 3.0};
  op_set s = op_decl_set(3, "s");
  op_dat a = op_decl_dat(s, 1, "double", a0.data(), "a");
  op_dat b = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "b");
  std::vector<double> got(3);
  for (int use : {1, 0}) {
    op_par_loop(optional, "optional", s, op_arg_gbl(&use, 1, "int", OP_READ),
                op_opt_arg_dat(use, use ? a : nullptr, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(b, got.data());
    CHECK(got == (use ? std::vector<double>{2.0, 4.0, 6.0} : std::vector<double>{-1.0, -1.0, -1.0}));
  }
}

TEST_CASE("op2: constants reach the kernels, and declared again change them", "[op2]") {
  op2_program program;
  const std::vector<double> a0{1.0, -2.0, 0.5};
  op_set s = op_decl_set(3, "s");
  op_dat a = op_decl_dat(s, 1, "double", a0.data(), "a");
  op_dat b = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "b");
  factor = 0.1;
  offset[0] = 7.0;
  offset[1] = 1.0 / 3.0;
  offset[2] = -7.0;
  shift = -2;
  op_decl_const(1, "double", &factor);
  op_decl_const(3, "double", offset);
  op_decl_const(1, "int", &shift);
  std::vector<double> got(3);
  for (double f : {0.1, -3.5}) {
    factor = f;
    op_decl_const(1, "double", &factor);
    op_par_loop(scale, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(b, got.data());
    // Every bit of a constant reaches a device (a device may fuse the multiply-add).
    for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(f * a0[i] + offset[1] + shift).epsilon(1e-15));
  }
  // Changed without op_decl_const: every backend sees the declared value (the host too, which reads
  // the variable: it holds the declared value while the loop runs, and its own after).
  factor = 100.0;
  op_par_loop(scale, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(b, got.data());
  for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(-3.5 * a0[i] + offset[1] + shift).epsilon(1e-15));
  CHECK(factor == 100.0);
  // More values than the variable holds.
  double single = 1.0;
  CHECK_THROWS_WITH(op_decl_const(3, "double", &single),
                    Catch::Contains("op_decl_const 'single': the dimension is 3, and the variable holds 1 value"));
  CHECK_THROWS_WITH(op_decl_const(4, "double", offset),
                    Catch::Contains("op_decl_const 'offset': the dimension is 4, and the variable holds 3 values"));
}

TEST_CASE("op2: a device kernel naming a variable no op_decl_const declared says which", "[op2][device]") {
  if (!on_device()) return;
  op2_program program;
  op_set s = op_decl_set(2, "s");
  op_dat a = op_decl_dat(s, 1, "double", std::vector<double>{1.0, 2.0}.data(), "a");
  op_dat b = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "b");
  // scale.h names factor, offset and shift; only shift is declared.
  op_decl_const(1, "int", &shift);
  CHECK_THROWS_WITH(op_par_loop(scale, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE)),
                    Catch::StartsWith("parloop: kernel 'scale' failed to compile") &&
                        Catch::Contains("'factor', 'offset' named by the kernel but not declared") &&
                        !Catch::Contains("'shift'"));
}

// b = f(a) on four elements by `loop(s, a, b)`, with `factor` declared as `f`: b's values.
template <class Loop>
std::vector<double> pointwise(const std::vector<double>& a0, double f, Loop loop) {
  op2_program program;
  op_set s = op_decl_set(static_cast<int>(a0.size()), "s");
  op_dat a = op_decl_dat(s, 1, "double", a0.data(), "a");
  op_dat b = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "b");
  factor = f;
  op_decl_const(1, "double", &factor);
  loop(s, a, b);
  std::vector<double> got(a0.size());
  op_fetch_data(b, got.data());
  return got;
}

TEST_CASE("op2: a kernel calls a helper of user_types.h, which devices get in front of it", "[op2]") {
  const std::vector<double> a0{1.5, -2.0, 0.25, 3.0};
  const std::vector<double> got = pointwise(a0, 0.75, [](op_set s, op_dat a, op_dat b) {
    op_par_loop(with_helper, "with_helper", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  });
  // Products of these are exact in double, fused or not.
  for (int i = 0; i < 4; ++i) CHECK(got[i] == a0[i] * a0[i] + 0.75);
}

TEST_CASE("op2: a kernel's headers are read through their guards and conditionals", "[op2]") {
  const std::vector<double> a0{1.5, -2.0, 0.25, 3.0};
  const std::vector<double> got = pointwise(a0, 0.25, [](op_set s, op_dat a, op_dat b) {
    op_par_loop(guarded, "guarded", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  });
  for (int i = 0; i < 4; ++i) CHECK(got[i] == 3.0 * a0[i] + 1.25);
}

// A kernel with no header of its own, defined in the application's source as OP2's tutorial
// defines its kernels: a device gets it from this file (embedded by parloop_embed_sources) with
// the function and the macro it uses, and none of the rest.
#define CUBE_WEIGHT 2.0
static inline double cube(double v) { return v * v * v; }
inline void cubed(const double* a, double* b) { *b = CUBE_WEIGHT * cube(*a) + factor; /* { */ }

TEST_CASE("op2: a kernel defined in the application's source runs, with what it calls", "[op2]") {
  const std::vector<double> a0{1.5, -2.0, 0.25, 3.0};
  const std::vector<double> got = pointwise(a0, -0.5, [](op_set s, op_dat a, op_dat b) {
    op_par_loop(cubed, "cubed", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  });
  // Exact in double, fused or not.
  for (int i = 0; i < 4; ++i) CHECK(got[i] == 2.0 * a0[i] * a0[i] * a0[i] - 0.5);
  const std::string source = parloop::op2::kernel_source("cubed", {}, __FILE__);
  CHECK(source.find("#define CUBE_WEIGHT 2.0\nstatic inline double cube(double v)") != std::string::npos);
  CHECK(source.find("/* { */ }\n") != std::string::npos);
  CHECK(source.find("op2_program") == std::string::npos);
}

TEST_CASE("op2: op_arg_info is written as elements run in order", "[op2]") {
  op2_program program;
  const std::vector<double> v0{0.5, 3.0, -1.0, 3.0, 2.5};
  op_set s = op_decl_set(5, "s");
  op_dat v = op_decl_dat(s, 1, "double", v0.data(), "v");
  double best = 0.0;
  int at = -1;
  op_par_loop(where_max, "where_max", s, op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ), op_arg_idx(-1, OP_ID),
              op_arg_gbl(&best, 1, "double", OP_MAX), op_arg_info(&at, 1, "int", 2));
  CHECK(best == 3.0);
  CHECK(at == 1);
}

TEST_CASE("op2: a map of long indices, sizes and the profile's sections", "[op2]") {
  op2_program program;
  mesh m(200, 4);
  op_set cells = op_decl_set(m.cells_count, "cells"), edges = op_decl_set(m.edges_count, "edges");
  std::vector<long long> wide(m.ecell.begin(), m.ecell.end());
  op_map pecell = op_decl_map_long(edges, cells, 2, wide.data(), "pecell");
  op_dat out = op_decl_dat(edges, 2, "int", static_cast<int*>(nullptr), "out");
  op_par_loop(numbers, "numbers", edges, op_arg_idx(-1, OP_ID), op_arg_idx(1, pecell),
              op_arg_dat(out, -1, OP_ID, 2, "int", OP_WRITE));
  std::vector<int> got(2 * static_cast<std::size_t>(m.edges_count));
  op_fetch_data(out, got.data());
  for (int e = 0; e < m.edges_count; ++e) CHECK(got[2 * e + 1] == m.ecell[2 * e + 1]);
  wide[3] = 1LL << 40;
  CHECK_THROWS_WITH(op_decl_map_long(edges, cells, 2, wide.data(), "far"),
                    Catch::Contains("op_decl_map 'far': entry 1 of element 1 is 1099511627776"));
  CHECK(op_get_size(edges) == m.edges_count);

  op_profile_start("app");
  op_profile_enter("step");
  op_profile_next("other");
  op_profile_exit();
  op_profile_enter("step");
  op_profile_end();
  CHECK_THROWS_WITH(op_profile_exit(), Catch::Contains("op_profile_exit: no section is open"));
  const auto& sections = parloop::op2::profile::instance().sections();
  CHECK(sections.at("app").calls == 1);
  CHECK(sections.at("app/step").calls == 2);
  CHECK(sections.at("app/other").calls == 1);
  CHECK(sections.at("app").seconds >= sections.at("app/step").seconds);
}

TEST_CASE("op2: a kernel that calls printf runs", "[op2]") {
  op2_program program;
  const std::vector<double> v0{4.25, 1.0};
  op_set s = op_decl_set(2, "s");
  op_dat v = op_decl_dat(s, 1, "double", v0.data(), "v");
  CHECK_NOTHROW(op_par_loop(shout, "shout", s, op_arg_idx(-1, OP_ID), op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ)));
}

TEST_CASE("op2: dats are read back, written to OP2's files, and temporaries freed", "[op2]") {
  op2_program program;
  const std::vector<double> x0{1.5, -0.0, 2.0, 1e-3, -4.0, 0.25};
  const std::vector<int> n0{3, -1, 7};
  op_set s = op_decl_set(3, "s");
  op_dat x = op_decl_dat(s, 2, "double", x0.data(), "x");
  op_dat n = op_decl_dat(s, 1, "int", n0.data(), "n");
  CHECK(op_get_size(s) == 3);
  CHECK(op_is_root() == 1);
  std::vector<double> part(4);
  op_fetch_data_idx(x, part.data(), 1, 2);
  CHECK(part == std::vector<double>{2.0, 1e-3, -4.0, 0.25});
  temporary_folder folder;
  const std::string text = (folder.path / "x.txt").string(), binary = (folder.path / "n.bin").string();
  op_print_dat_to_txtfile(x, text.c_str());
  CHECK(read_text(text) ==
        "3 2\n +1.500000000000000E+00 +0.000000000000000E+00\n +2.000000000000000E+00 +1.000000000000000E-03\n"
        " -4.000000000000000E+00 +2.500000000000000E-01\n");
  op_print_dat_to_binfile(n, binary.c_str());
  const std::string bytes = read_text(binary);
  REQUIRE(bytes.size() == 5 * sizeof(int));
  int values[5];
  std::memcpy(values, bytes.data(), sizeof values);
  CHECK(std::vector<int>(values, values + 5) == std::vector<int>{3, 1, 3, -1, 7});
  op_dat t = op_decl_dat_temp(s, 1, "double", static_cast<double*>(nullptr), "t");
  CHECK(op_free_dat_temp(t) == 1);
  CHECK_THROWS_WITH(op_free_dat_temp(x), Catch::Contains("dat 'x' was declared by op_decl_dat"));
  void* p = op_malloc(64);
  CHECK(p != nullptr);
  op_free(p);
}

TEST_CASE("op2: dat->data is the host copy, refreshed by op_fetch_data", "[op2]") {
  op2_program program;
  const std::vector<double> a0{1.0, -2.0, 0.5, 4.0};
  op_set s = op_decl_set(4, "s");
  op_dat a = op_decl_dat(s, 1, "double", a0.data(), "a");
  op_dat b = op_decl_dat(s, 1, "double", a0.data(), "b");
  op_dat t = op_decl_dat_temp(s, 1, "double", static_cast<double*>(nullptr), "t");
  const auto held = [](op_dat d) {
    const double* v = reinterpret_cast<const double*>(d->data);
    return std::vector<double>(v, v + d->set->size);
  };
  CHECK(held(a) == a0);
  CHECK(held(t) == std::vector<double>(4, 0.0));
  factor = 2.0;
  offset[1] = 0.0;
  shift = 1;
  op_decl_const(1, "double", &factor);
  op_decl_const(3, "double", offset);
  op_decl_const(1, "int", &shift);
  op_par_loop(scale, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  // A loop leaves the copy as it was; a fetch of some elements refreshes those.
  CHECK(held(b) == a0);
  double one = 0.0;
  op_fetch_data_idx(b, &one, 2, 2);
  CHECK(one == 2.0);
  CHECK(held(b) == std::vector<double>{1.0, -2.0, 2.0, 4.0});
  // Fetched into the copy itself, as programs that read dat->data do.
  op_fetch_data(b, reinterpret_cast<double*>(b->data));
  CHECK(held(b) == std::vector<double>{3.0, -3.0, 2.0, 9.0});
  // op_mpi_get_data's copy reads back what it holds.
  op_dat copy = op_mpi_get_data(b);
  std::vector<double> again(4);
  op_fetch_data(copy, again.data());
  CHECK(again == held(b));
  free(copy->data);
  free(copy->set);
  free(copy);
}

// What `f` prints on standard output.
template <class F>
std::string printed(F f) {
  temporary_folder folder;
  const std::string file = (folder.path / "out.txt").string();
  std::fflush(stdout);
  const int saved = dup(1), into = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(into, 1);
  f();
  std::fflush(stdout);
  dup2(saved, 1);
  close(into);
  close(saved);
  return read_text(file);
}

TEST_CASE("op2: op_partition and op_halo_create in one process leave the mesh as declared", "[op2]") {
  op2_program program;
  std::vector<int> cell_nodes{0, 1, 1, 2};
  op_set nodes = op_decl_set(3, "nodes"), cells = op_decl_set(2, "cells");
  op_map pcell = op_decl_map(cells, nodes, 2, cell_nodes.data(), "pcell");
  CHECK(printed([&] { op_partition("RANDOM", nullptr, cells, pcell, nullptr); }) ==
        "op_partition: one process, nothing to partition (RANDOM asked)\n");
  CHECK(printed([&] { op_partition("PTSCOTCH", "KWAY", cells, pcell, nullptr); }) ==
        "op_partition: one process, nothing to partition (PTSCOTCH KWAY asked)\n");
  CHECK(printed([] { op_halo_create(); }).empty());
  CHECK(cells->size == 2);
  CHECK(std::vector<int>(pcell->map, pcell->map + 4) == cell_nodes);
}

TEST_CASE("op2: op_mpi_get_data copies a dat into storage its caller frees", "[op2]") {
  op2_program program;
  const std::vector<double> values{0.5, -1.5, 2.25, 4.0, -8.0, 16.5};
  op_set s = op_decl_set(3, "s");
  op_dat d = op_decl_dat(s, 2, "double", values.data(), "d");
  // In one process, the whole dat; as OP2's callers do, released with free().
  op_dat copy = op_mpi_get_data(d);
  REQUIRE(copy->set->size == 3);
  CHECK(copy->size == 16);
  CHECK(copy->dim == 2);
  CHECK(std::string(copy->name) == "d");
  CHECK(std::string(copy->type) == "double");
  CHECK(std::vector<double>(reinterpret_cast<double*>(copy->data), reinterpret_cast<double*>(copy->data) + 6) ==
        values);
  free(copy->data);
  free(copy->set);
  free(copy);
  CHECK_THROWS_WITH(op_mpi_get_data(nullptr), Catch::Contains("op_mpi_get_data"));
}

TEST_CASE("op2: wrong declarations and arguments name what is wrong", "[op2]") {
  parloop::op2::throw_errors(true);
  CHECK_THROWS_WITH(op_decl_set(3, "s"), Catch::Contains("op_decl_set: OP2's API is used before op_init"));
  op2_program program;
  CHECK_THROWS_WITH(op_init(0, nullptr, 0), Catch::Contains("op_init: called twice"));
  const std::vector<double> x0(6, 1.0);
  const std::vector<int> bad_map{0, 1, 2, 9};
  op_set s = op_decl_set(3, "s");
  op_set other = op_decl_set(2, "other");
  CHECK_THROWS_WITH(op_decl_set(-1, "neg"), Catch::Contains("op_decl_set 'neg': the size is -1"));
  CHECK_THROWS_WITH(op_decl_dat(s, 2, "float", x0.data(), "x"),
                    Catch::Contains("op_decl_dat 'x': type \"float\" is declared for data of type double"));
  CHECK_THROWS_WITH(op_decl_dat(s, 2, "uint", x0.data(), "x"), Catch::Contains("type \"uint\" is not one"));
  CHECK_THROWS_WITH(op_decl_map(other, s, 2, const_cast<int*>(bad_map.data()), "m"), Catch::Contains("'m'"));
  op_dat x = op_decl_dat(s, 2, "double", x0.data(), "x");
  op_dat y = op_decl_dat(other, 1, "double", x0.data(), "y");
  CHECK_THROWS_WITH(op_arg_dat(x, -1, OP_ID, 2, "int", OP_READ),
                    Catch::Contains("op_arg_dat of dat 'x': type \"int\" given, the dat holds \"double\""));
  CHECK_THROWS_WITH(op_arg_dat(x, -1, OP_ID, 3, "double", OP_READ),
                    Catch::Contains("dimension 3 given, the dat has 2"));
  std::vector<int> to_s{0, 1, 2, 0};
  op_map m = op_decl_map(other, s, 2, to_s.data(), "m");
  CHECK_THROWS_WITH(op_arg_dat(x, 2, m, 2, "double", OP_READ), Catch::Contains("index 2 of map 'm' of dimension 2"));
  CHECK_THROWS_WITH(op_arg_dat(y, 0, m, 1, "double", OP_READ),
                    Catch::Contains("map 'm' leads to set 's', the dat is on 'other'"));
  double g = 0.0;
  CHECK_THROWS_WITH(op_arg_gbl(&g, 1, "double", OP_RW), Catch::Contains("OP_RW of a global"));
  CHECK_THROWS_WITH(op_arg_gbl(&g, 1, "int", OP_INC),
                    Catch::Contains("type \"int\" given for a variable of type double"));
  // Checked against the loop's set and the kernel's parameters when the loop runs.
  CHECK_THROWS_WITH(op_par_loop(scale, "scale", s, op_arg_dat(y, -1, OP_ID, 1, "double", OP_READ),
                                op_arg_dat(y, -1, OP_ID, 1, "double", OP_WRITE)),
                    Catch::Contains("dat 'y' is on set 'other', and the loop is over 's'"));
  op_dat n = op_decl_dat(s, 1, "int", std::vector<int>{1, 2, 3}.data(), "n");
  CHECK_THROWS_WITH(
      op_par_loop(scale, "scale", s, op_arg_dat(n, -1, OP_ID, 1, "int", OP_READ),
                  op_arg_dat(x, -1, OP_ID, 2, "double", OP_WRITE)),
      Catch::Contains("op_par_loop 'scale': argument 0 holds int, and the kernel's parameter 0 points to double"));
  CHECK_THROWS_WITH(op_par_loop(scale, "scale", s, op_arg_dat(x, -1, OP_ID, 2, "double", OP_INC),
                                op_arg_dat(x, -1, OP_ID, 2, "double", OP_WRITE)),
                    Catch::Contains("argument 0 is OP_INC, and the kernel's parameter 0 is const"));
  CHECK_THROWS_WITH(op_par_loop(scale, "scale", s, op_arg_dat(x, -2, m, 2, "double", OP_READ),
                                op_arg_dat(x, -1, OP_ID, 2, "double", OP_WRITE)),
                    Catch::Contains("is a vector of a map's entries, and the kernel's parameter 0 is one pointer"));
}

TEST_CASE("op2: a kernel's source is found beside the calling file, in PARLOOP_OP2_KERNELS, or embedded", "[op2]") {
  // The headers beside this file were embedded by parloop_embed_sources, as they are on disk.
  const std::filesystem::path here = std::filesystem::path(__FILE__).parent_path();
  for (const char* header : {"edge_flux.h", "scale.h"}) {
    const auto& embedded = parloop::detail::embedded_files();
    const auto found = embedded.find(parloop::detail::embedded_key(here / header));
    REQUIRE(found != embedded.end());
    CHECK(found->second == read_text(here / header));
  }
  CHECK(parloop::op2::kernel_source("scale", {}, __FILE__).find("inline void scale(") != std::string::npos);
  // Found embedded under a folder that is not on disk.
  parloop::embed_source("/parloop-nowhere/kernels/nowhere.h", "#include \"helper.h\"\ninline void nowhere() {}\n");
  parloop::embed_source("/parloop-nowhere/kernels/helper.h", "// the helper\n");
  const std::vector<std::filesystem::path> folders{"/parloop-nowhere/kernels"};
  const std::string source = parloop::op2::kernel_source("nowhere", folders, "/elsewhere/app.cpp");
  CHECK(source.find("// the helper") != std::string::npos);
  CHECK(source.find("inline void nowhere()") != std::string::npos);
  CHECK_THROWS_WITH(
      parloop::op2::kernel_source("missing", folders, "/elsewhere/app.cpp"),
      Catch::Contains("missing.h is in none of the folders searched: '/parloop-nowhere/kernels' "
                      "'/elsewhere', and none of the application's sources defines it: '/elsewhere/app.cpp'"));
}

TEST_CASE("op2: a kernel header edited between two runs is compiled again, and kept", "[op2][device]") {
  if (!on_device()) return;
  temporary_folder kernels, cache;
  const scoped_env folders("PARLOOP_OP2_KERNELS", kernels.path.c_str());
  const scoped_env cached("PARLOOP_CACHE", "on"), cache_folder("PARLOOP_CACHE_DIR", cache.path.c_str());
  const auto write_scale = [&](const char* formula) {
    std::ofstream(kernels.path / "scale.h")
        << "inline void scale(const double *a, double *b) { *b = " << formula << "; }\n";
  };
  const std::vector<double> a0{1.0, 2.0};
  // Each run a program of its own, on the disk cache: its compiles and the values it gives.
  const auto run = [&]() {
    op2_program program;
    op_set s = op_decl_set(2, "s");
    op_dat a = op_decl_dat(s, 1, "double", a0.data(), "a");
    op_dat b = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "b");
    op_par_loop(scale, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
    std::vector<double> got(2);
    op_fetch_data(b, got.data());
    std::uint64_t compiles = 0;
    for (const auto& [key, r] : parloop::op2::program::current("test").kernels) compiles += r.cache->compiles();
    return std::pair{compiles, got};
  };
  write_scale("2.0 * (*a)");
  CHECK(run() == std::pair{std::uint64_t{1}, std::vector<double>{2.0, 4.0}});
  CHECK(run() == std::pair{std::uint64_t{0}, std::vector<double>{2.0, 4.0}});
  write_scale("10.0 * (*a)");
  CHECK(run() == std::pair{std::uint64_t{1}, std::vector<double>{10.0, 20.0}});
}

#if PARLOOP_HAVE_HDF5
// OP2's HDF5 Airfoil's way: a mesh dumped with its constants, then read back by name (optional
// datasets absent), looped over on every backend, and a dat fetched into a file at a path.
TEST_CASE("op2: a mesh dumped to HDF5 and read back runs as declared; missing maps and dats are NULL", "[op2]") {
  temporary_folder folder;
  const std::string grid = (folder.path / "grid.h5").string(), out = (folder.path / "out.h5").string();
  mesh m(400, 7);
  {
    op2_program program;
    declared d(m);
    weight = 0.5;
    op_dump_to_hdf5(grid.c_str());
    op_write_const_hdf5("weight", 1, "double", reinterpret_cast<char*>(&weight), grid.c_str());
  }
  op2_program program;
  op_set nodes = op_decl_set_hdf5(grid.c_str(), "nodes");
  op_set cells = op_decl_set_hdf5(grid.c_str(), "cells");
  op_set edges = op_decl_set_hdf5_infer_size(grid.c_str(), "edges", "pecell");
  REQUIRE(op_get_size(edges) == m.edges_count);
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, grid.c_str(), "pecell");
  op_map penode = op_decl_map_hdf5(edges, nodes, 2, grid.c_str(), "penode");
  CHECK(op_decl_map_hdf5(cells, nodes, 4, grid.c_str(), "m_test") == nullptr);
  op_dat p_x = op_decl_dat_hdf5(nodes, 1, "double", grid.c_str(), "p_x");
  op_dat p_q = op_decl_dat_hdf5(cells, 2, "double", grid.c_str(), "p_q");
  op_dat p_r = op_decl_dat_hdf5(cells, 2, "double", grid.c_str(), "p_r");
  op_dat p_test = op_decl_dat_hdf5(cells, 4, "double", grid.c_str(), "p_test");
  CHECK(p_test == nullptr);
  weight = 0.0;
  op_get_const_hdf5("weight", 1, "double", reinterpret_cast<char*>(&weight), grid.c_str());
  CHECK(weight == 0.5);
  op_decl_const(1, "double", &weight);
  op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(p_x, 0, penode, 1, "double", OP_READ),
              op_arg_dat(p_x, 1, penode, 1, "double", OP_READ), op_arg_dat(p_q, 0, pecell, 2, "double", OP_READ),
              op_arg_dat(p_q, 1, pecell, 2, "double", OP_READ), op_arg_dat(p_r, 0, pecell, 2, "double", OP_INC),
              op_arg_dat(p_r, 1, pecell, 2, "double", OP_INC));
  std::vector<double> got(2 * static_cast<std::size_t>(m.cells_count));
  op_fetch_data(p_r, got.data());
  check_close(got, plain_flux(m));
  // A NULL dat in a loop is an error naming it, not a crash.
  CHECK_THROWS_WITH(op_arg_dat(p_test, -1, OP_ID, 4, "double", OP_READ), Catch::Contains("the dat is null"));

  op_fetch_data_hdf5_file(p_r, out.c_str());
  op_fetch_data_hdf5_file_path(p_r, out.c_str(), "/results/states_0000000");
  const parloop::hdf5::File file = parloop::hdf5::File::open(out);
  for (const char* at : {"p_r", "/results/states_0000000"}) {
    const parloop::Set cells_again(parloop::Runtime::open(parloop::backend_kind::host), m.cells_count);
    const auto back = parloop::hdf5::read_dat<double, 2>(file, at, cells_again);
    CHECK(std::vector<double>(back.host().begin(), back.host().end()) == got);
  }
  // Another numeric type than asked for is converted, as OP2 converts it (with its warning).
  {
    const parloop::Runtime host = parloop::Runtime::open(parloop::backend_kind::host);
    parloop::hdf5::File more = parloop::hdf5::File::append(grid);
    parloop::hdf5::write(
        more, parloop::Dat<float>(parloop::Set(host, m.nodes_count),
                                  std::vector<float>(static_cast<std::size_t>(m.nodes_count), 0.25f), "p_f"));
  }
  op_dat p_f = op_decl_dat_hdf5(nodes, 1, "double", grid.c_str(), "p_f");
  std::vector<double> f(static_cast<std::size_t>(m.nodes_count));
  op_fetch_data(p_f, f.data());
  CHECK(f == std::vector<double>(f.size(), 0.25));
  CHECK_THROWS_WITH(op_decl_dat_hdf5(cells, 3, "double", grid.c_str(), "p_q"),
                    Catch::Contains(grid) && Catch::Contains("dataset 'p_q' read as dat 'p_q' has 2 values a row"));
  CHECK_THROWS_WITH(op_decl_set_hdf5((folder.path / "none.h5").c_str(), "cells"), Catch::Contains("no such file"));
}
#endif
