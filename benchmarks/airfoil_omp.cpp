// SPDX-License-Identifier: MIT
// airfoil_omp (airfoil_cpu.hpp): OP2's OpenMP back end by hand.
#include "airfoil_cpu.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <omp.h>

namespace parloop_bench::cpu {

namespace {

// The blocks of an iteration set of `n` elements, `block` at a time, grouped by colour: no two
// blocks of one colour reach a common target through `map` (`arity` targets per element). Blocks
// take the lowest colour their targets have not seen, in order, as OP2's plan does.
std::vector<std::vector<int>> colour_blocks(const int* map, int arity, int n, int targets, int block) {
  const int blocks = (n + block - 1) / block;
  std::vector<std::uint64_t> seen(std::size_t(targets), 0);
  std::vector<std::vector<int>> by_colour;
  for (int b = 0; b < blocks; ++b) {
    const int first = b * block, last = std::min(n, first + block);
    std::uint64_t taken = 0;
    for (int e = first; e < last; ++e) {
      for (int j = 0; j < arity; ++j) taken |= seen[std::size_t(map[std::size_t(e) * arity + j])];
    }
    if (taken == ~std::uint64_t{0}) throw std::invalid_argument("airfoil_omp: a block needs more than 64 colours");
    const int colour = std::countr_one(taken);
    for (int e = first; e < last; ++e) {
      for (int j = 0; j < arity; ++j) seen[std::size_t(map[std::size_t(e) * arity + j])] |= std::uint64_t{1} << colour;
    }
    if (std::size_t(colour) >= by_colour.size()) by_colour.resize(std::size_t(colour) + 1);
    by_colour[std::size_t(colour)].push_back(b);
  }
  return by_colour;
}

}  // namespace

struct airfoil_omp::impl {
  mesh_view m;
  constants k;
  int threads, block;
  // Left uninitialised by new[], so that the first write, in a static loop like those that use
  // them, places each page near the thread that will.
  std::unique_ptr<double[]> q, qold, res, adt;
  std::vector<std::vector<int>> edge_plan, bedge_plan;
  double rms = 0.0;

  impl(const mesh_view& mesh, const constants& kc, int t, int b)
      : m(mesh),
        k(kc),
        threads(t),
        block(b),
        q(new double[4 * std::size_t(mesh.ncell)]),
        qold(new double[4 * std::size_t(mesh.ncell)]),
        res(new double[4 * std::size_t(mesh.ncell)]),
        adt(new double[std::size_t(mesh.ncell)]) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int c = 0; c < m.ncell; ++c) {
      for (int n = 0; n < 4; ++n) {
        q[4 * std::size_t(c) + n] = k.qinf[n];
        qold[4 * std::size_t(c) + n] = 0.0;
        res[4 * std::size_t(c) + n] = 0.0;
      }
      adt[std::size_t(c)] = 0.0;
    }
    edge_plan = colour_blocks(m.ecell, 2, m.nedge, m.ncell, block);
    bedge_plan = colour_blocks(m.becell, 1, m.nbedge, m.ncell, block);
  }

  double* q_of(int c) const { return &q[4 * std::size_t(c)]; }
  double* res_of(int c) const { return &res[4 * std::size_t(c)]; }
  const double* x_of(int n) const { return &m.x[2 * std::size_t(n)]; }

  // OP2's coloured blocks: a colour's blocks shared among the threads, a barrier between colours
  // (the end of each omp for), each block's elements in order through `body`.
  template <class Body>
  void over_plan(const std::vector<std::vector<int>>& plan, int n, Body body) {
#pragma omp parallel num_threads(threads)
    for (const std::vector<int>& blocks : plan) {
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        const int first = blocks[i] * block, last = std::min(n, first + block);
        for (int e = first; e < last; ++e) body(e);
      }
    }
  }

  void res_calc() {
    over_plan(edge_plan, m.nedge, [this](int e) {
      const int* n = &m.edge[2 * std::size_t(e)];
      const int* c = &m.ecell[2 * std::size_t(e)];
      parloop_bench::cpu::res_calc(k, x_of(n[0]), x_of(n[1]), q_of(c[0]), q_of(c[1]), &adt[std::size_t(c[0])],
                                   &adt[std::size_t(c[1])], res_of(c[0]), res_of(c[1]));
    });
  }

  void bres_calc() {
    over_plan(bedge_plan, m.nbedge, [this](int e) {
      const int* n = &m.bedge[2 * std::size_t(e)];
      const int c = m.becell[e];
      parloop_bench::cpu::bres_calc(k, x_of(n[0]), x_of(n[1]), q_of(c), &adt[std::size_t(c)], res_of(c), &m.bound[e]);
    });
  }
};

airfoil_omp::airfoil_omp(const mesh_view& m, const constants& k, int threads, int block) {
  if (threads < 1) throw std::invalid_argument("airfoil_omp: threads is " + std::to_string(threads) + ", not >= 1");
  if (block < 1) throw std::invalid_argument("airfoil_omp: block is " + std::to_string(block) + ", not >= 1");
  impl_ = std::make_unique<impl>(m, k, threads, block);
}
airfoil_omp::~airfoil_omp() = default;

void airfoil_omp::iterate() {
  run_loop(0);
  for (int step = 0; step < 2; ++step) {
    for (int l = 1; l < loop_count; ++l) run_loop(l);
  }
}

void airfoil_omp::run_loop(int l) {
  impl& s = *impl_;
  const int threads = s.threads;
  switch (l) {
    case 0:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int c = 0; c < s.m.ncell; ++c) save_soln(s.q_of(c), &s.qold[4 * std::size_t(c)]);
      break;
    case 1:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int c = 0; c < s.m.ncell; ++c) {
        const int* n = &s.m.cell[4 * std::size_t(c)];
        adt_calc(s.k, s.x_of(n[0]), s.x_of(n[1]), s.x_of(n[2]), s.x_of(n[3]), s.q_of(c), &s.adt[std::size_t(c)]);
      }
      break;
    case 2: s.res_calc(); break;
    case 3: s.bres_calc(); break;
    default: {
      double rms = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : rms)
      for (int c = 0; c < s.m.ncell; ++c) {
        update(&s.qold[4 * std::size_t(c)], s.q_of(c), s.res_of(c), &s.adt[std::size_t(c)], &rms);
      }
      s.rms = rms;
      break;
    }
  }
}

double airfoil_omp::rms() const { return std::sqrt(impl_->rms / impl_->m.ncell); }

std::vector<double> airfoil_omp::q() const {
  return {impl_->q.get(), impl_->q.get() + 4 * std::size_t(impl_->m.ncell)};
}

int airfoil_omp::edge_colours() const { return static_cast<int>(impl_->edge_plan.size()); }
int airfoil_omp::bedge_colours() const { return static_cast<int>(impl_->bedge_plan.size()); }

}  // namespace parloop_bench::cpu
