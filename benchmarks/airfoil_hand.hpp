// SPDX-License-Identifier: MIT
// OP2's Airfoil written by hand in CUDA (runtime API), the baseline bench_airfoil times parloop
// against in the same process. The kernels keep examples/airfoil/kernels_c.hpp's order of
// floating-point operations, so the histories agree with the host's to rounding (nvcc's default
// FMA contraction, as NVRTC's in parloop, and the order of the increments are the differences).
// Plain C++: no CUDA or parloop header, so any target of the build can include it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace parloop_bench {

struct airfoil_hand_options {
  bool soa = false;     // q, qold and res as q[k * ncell + c] rather than q[4 * c + k]
  bool colour = false;  // res_calc / bres_calc a colour at a time with plain increments, not atomicAdd
  int block = 256;      // threads per block of every kernel: a multiple of 32, at most 1024
};

// The device's copy bandwidth in bytes per second: cudaMemcpyAsync of `bytes` from one device
// buffer to another on the current device, timed with events, counted as 2 * bytes (each byte
// read once and written once); the fastest of several copies after one untimed. Memory-bound
// kernels are measured against it: it is what the device moves, not the data sheet's figure.
// Throws std::invalid_argument for 0 bytes and std::runtime_error naming a failed CUDA call.
double copy_bandwidth_bytes_per_s(std::size_t bytes);

class airfoil_hand {
 public:
  // The mesh as examples/airfoil/mesh.hpp holds it: counts = {nnode, ncell, nedge, nbedge},
  // x[2 * nnode], cell[4 * ncell], edge[2 * nedge], ecell[2 * nedge], bedge[2 * nbedge],
  // becell[nbedge], bound[nbedge] (1 wall, anything else far field); consts = {gam, gm1, cfl,
  // eps}. q starts as qinf in every cell, qold, res and adt as 0. Runs on the current device
  // (calls must keep it current), on a stream of its own. Indices out of range or counts whose
  // 32-bit indices would overflow throw std::invalid_argument; a CUDA failure throws
  // std::runtime_error naming the call.
  airfoil_hand(const int* counts, const double* x, const int* cell, const int* edge, const int* ecell, const int* bedge,
               const int* becell, const int* bound, const double consts[4], const double qinf[4],
               airfoil_hand_options options);
  ~airfoil_hand();
  airfoil_hand(const airfoil_hand&) = delete;
  airfoil_hand& operator=(const airfoil_hand&) = delete;
  airfoil_hand(airfoil_hand&&) noexcept;
  airfoil_hand& operator=(airfoil_hand&&) noexcept;

  // One OP2 iteration (save_soln; twice adt_calc, res_calc, bres_calc, rms = 0, update),
  // queued on the stream: returns without waiting.
  void iterate();
  // sqrt(rms / ncell) of the last update (0 before the first). Waits for the stream.
  double rms();
  // q in AoS order (out[4 * c + k]) whatever the layout: 4 * ncell doubles. Waits.
  void q(double* out);
  void synchronize();

  // Per-loop device time from cudaEvent pairs (a colour-at-a-time loop is one pair around all
  // its launches). Off by default: the events cost a little per launch. Turning it on clears the
  // totals. kernel_seconds() waits for the stream and returns total seconds per loop since then,
  // in the order save_soln, adt_calc, res_calc, bres_calc, update.
  void time_kernels(bool on);
  std::vector<std::pair<std::string, double>> kernel_seconds() const;

  // Colours of edges and of boundary edges: launches per res_calc / bres_calc when colouring;
  // 0 without colour (one launch each).
  int edge_colours() const;
  int bedge_colours() const;
  const airfoil_hand_options& options() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace parloop_bench
