// SPDX-License-Identifier: MIT
// OP2's Airfoil written by hand for CPUs, the baselines bench_airfoil_cpu times parloop's host
// and threads backends against in the same process: `airfoil_seq`, OP2's sequential back end
// (plain loops in order), and `airfoil_omp`, OP2's OpenMP back end (direct loops in static
// chunks; loops that increment through a map over blocks of the iteration set coloured so that
// no two blocks of one colour reach one cell, a colour's blocks spread over the threads, each
// block's elements in order; arrays first touched by the threads that use them). airfoil_omp is
// compiled with OpenMP in a library of its own (airfoil_omp.cpp), so that nothing else of the
// benchmark is. Plain C++: no parloop header.
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "airfoil_cpu_kernels.hpp"

namespace parloop_bench::cpu {

// The mesh as examples/airfoil/mesh.hpp holds it (see airfoil_hand.hpp for the arrays).
struct mesh_view {
  int nnode, ncell, nedge, nbedge;
  const double* x;
  const int *cell, *edge, *ecell, *bedge, *becell, *bound;
};

// One OP2 iteration: save_soln; twice adt_calc, res_calc, bres_calc, rms = 0, update.
constexpr int loop_count = 5;

class airfoil_seq {
 public:
  airfoil_seq(const mesh_view& m, const constants& k)
      : m_(m), k_(k), q_(4 * std::size_t(m.ncell)), qold_(q_.size()), res_(q_.size()), adt_(std::size_t(m.ncell)) {
    for (std::size_t i = 0; i < q_.size(); ++i) q_[i] = k.qinf[i % 4];
  }

  void iterate() {
    run_loop(0);
    for (int step = 0; step < 2; ++step) {
      for (int l = 1; l < loop_count; ++l) run_loop(l);
    }
  }
  // Loop l of the order above; update (4) sets the rms to 0 first.
  void run_loop(int l) {
    switch (l) {
      case 0:
        for (int c = 0; c < m_.ncell; ++c) save_soln(&q_[4 * std::size_t(c)], &qold_[4 * std::size_t(c)]);
        break;
      case 1:
        for (int c = 0; c < m_.ncell; ++c) {
          const int* n = &m_.cell[4 * std::size_t(c)];
          adt_calc(k_, &m_.x[2 * std::size_t(n[0])], &m_.x[2 * std::size_t(n[1])], &m_.x[2 * std::size_t(n[2])],
                   &m_.x[2 * std::size_t(n[3])], &q_[4 * std::size_t(c)], &adt_[std::size_t(c)]);
        }
        break;
      case 2:
        for (int e = 0; e < m_.nedge; ++e) {
          const int* n = &m_.edge[2 * std::size_t(e)];
          const int* c = &m_.ecell[2 * std::size_t(e)];
          res_calc(k_, &m_.x[2 * std::size_t(n[0])], &m_.x[2 * std::size_t(n[1])], &q_[4 * std::size_t(c[0])],
                   &q_[4 * std::size_t(c[1])], &adt_[std::size_t(c[0])], &adt_[std::size_t(c[1])],
                   &res_[4 * std::size_t(c[0])], &res_[4 * std::size_t(c[1])]);
        }
        break;
      case 3:
        for (int e = 0; e < m_.nbedge; ++e) {
          const int* n = &m_.bedge[2 * std::size_t(e)];
          const int c = m_.becell[e];
          bres_calc(k_, &m_.x[2 * std::size_t(n[0])], &m_.x[2 * std::size_t(n[1])], &q_[4 * std::size_t(c)],
                    &adt_[std::size_t(c)], &res_[4 * std::size_t(c)], &m_.bound[e]);
        }
        break;
      default: {
        // Summed in a local, as a C programmer writes it: the compiler keeps it in a register.
        double rms = 0.0;
        for (int c = 0; c < m_.ncell; ++c) {
          update(&qold_[4 * std::size_t(c)], &q_[4 * std::size_t(c)], &res_[4 * std::size_t(c)], &adt_[std::size_t(c)],
                 &rms);
        }
        rms_ = rms;
        break;
      }
    }
  }
  // sqrt(rms / ncell) of the last update, as OP2 prints it.
  double rms() const { return std::sqrt(rms_ / m_.ncell); }
  const std::vector<double>& q() const { return q_; }

 private:
  mesh_view m_;
  constants k_;
  std::vector<double> q_, qold_, res_, adt_;
  double rms_ = 0.0;
};

class airfoil_omp {
 public:
  // `threads` OpenMP threads in every loop; `block` elements per block of res_calc's and
  // bres_calc's plan. Throws std::invalid_argument for threads or block below 1, or a mesh whose
  // blocks need more colours than the plan keeps (64).
  airfoil_omp(const mesh_view& m, const constants& k, int threads, int block);
  ~airfoil_omp();
  airfoil_omp(const airfoil_omp&) = delete;
  airfoil_omp& operator=(const airfoil_omp&) = delete;

  void iterate();
  void run_loop(int l);
  double rms() const;
  // q in the order of airfoil_seq::q(): 4 * ncell doubles.
  std::vector<double> q() const;
  // Colours of the edges' and boundary edges' block plans.
  int edge_colours() const;
  int bedge_colours() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace parloop_bench::cpu
