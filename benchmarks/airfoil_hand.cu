// SPDX-License-Identifier: MIT
// OP2's Airfoil by hand in CUDA: the interface is airfoil_hand.hpp's. Formulas and their order
// of operations are examples/airfoil/kernels_c.hpp's (1.0f and 0.5f there are exactly 1.0 and
// 0.5); one thread per cell, edge or boundary edge, 32-bit indices, x as double2, the cell map as
// int4 and the edge maps as int2 so that each element's indices are one load.
#include "airfoil_hand.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace parloop_bench {

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("airfoil_hand: ") + call + " failed: " + cudaGetErrorString(status));
  }
}

#define AIRFOIL_HAND_CHECK(call) check((call), #call)

// ---------------------------------------------------------------------------------------------
// Device code

struct flow_constants {
  double gam, gm1, cfl, eps, qinf[4];
};

// The cell arrays: AoS is q[4 * c + k], read and written as two double2 (16-byte accesses;
// double4 would be two accesses on sm_90 anyway); SoA is q[k * n + c], each component
// coalesced across a warp.
template <bool SoA>
__device__ __forceinline__ int at(int c, int k, int n) {
  return SoA ? k * n + c : 4 * c + k;
}

// For arrays no thread of the launch writes: the read-only data path.
template <bool SoA>
__device__ __forceinline__ void load_read_only(const double* __restrict__ p, int c, int n, double (&v)[4]) {
  if constexpr (SoA) {
    for (int k = 0; k < 4; ++k) v[k] = __ldg(p + k * n + c);
  } else {
    const double2* p2 = reinterpret_cast<const double2*>(p) + 2 * c;
    const double2 a = __ldg(p2), b = __ldg(p2 + 1);
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
  }
}

template <bool SoA>
__device__ __forceinline__ void load(const double* p, int c, int n, double (&v)[4]) {
  if constexpr (SoA) {
    for (int k = 0; k < 4; ++k) v[k] = p[k * n + c];
  } else {
    const double2* p2 = reinterpret_cast<const double2*>(p) + 2 * c;
    const double2 a = p2[0], b = p2[1];
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
  }
}

template <bool SoA>
__device__ __forceinline__ void store(double* p, int c, int n, const double (&v)[4]) {
  if constexpr (SoA) {
    for (int k = 0; k < 4; ++k) p[k * n + c] = v[k];
  } else {
    double2* p2 = reinterpret_cast<double2*>(p) + 2 * c;
    p2[0] = make_double2(v[0], v[1]);
    p2[1] = make_double2(v[2], v[3]);
  }
}

// res[c] += f (Sign 1) or res[c] -= f (Sign -1). Atomic: another thread of the launch may hold
// the same cell. Otherwise the launch is one colour and this thread is the cell's only writer:
// a plain read-modify-write. (x + -f is x - f exactly, so the atomic subtraction rounds alike.)
template <bool SoA, bool Atomic, int Sign>
__device__ __forceinline__ void increment(double* res, int c, int n, const double (&f)[4]) {
  if constexpr (Atomic) {
    for (int k = 0; k < 4; ++k) atomicAdd(res + at<SoA>(c, k, n), Sign > 0 ? f[k] : -f[k]);
  } else {
    double r[4];
    load<SoA>(res, c, n, r);
    for (int k = 0; k < 4; ++k) r[k] = Sign > 0 ? r[k] + f[k] : r[k] - f[k];
    store<SoA>(res, c, n, r);
  }
}

template <bool Atomic>
__device__ __forceinline__ void increment_one(double* p, double f) {
  if constexpr (Atomic) {
    atomicAdd(p, f);
  } else {
    *p += f;
  }
}

// q and qold have the same layout: a flat copy, two doubles a thread.
__global__ void save_soln_kernel(int n2, const double2* __restrict__ q, double2* __restrict__ qold) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) qold[i] = __ldg(q + i);
}

// One side of a cell, from node a to node b.
__device__ __forceinline__ double side(double2 a, double2 b, double u, double v, double c) {
  const double dx = b.x - a.x;
  const double dy = b.y - a.y;
  return fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
}

template <bool SoA>
__global__ void adt_calc_kernel(int ncell, const int4* __restrict__ cell, const double2* __restrict__ x,
                                const double* __restrict__ q, double* __restrict__ adt, flow_constants k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ncell) return;
  const int4 nodes = __ldg(cell + i);
  const double2 x1 = __ldg(x + nodes.x), x2 = __ldg(x + nodes.y), x3 = __ldg(x + nodes.z), x4 = __ldg(x + nodes.w);
  double qc[4];
  load_read_only<SoA>(q, i, ncell, qc);
  const double ri = 1.0 / qc[0];
  const double u = ri * qc[1];
  const double v = ri * qc[2];
  const double c = sqrt(k.gam * k.gm1 * (ri * qc[3] - 0.5 * (u * u + v * v)));
  double a = side(x1, x2, u, v, c);
  a += side(x2, x3, u, v, c);
  a += side(x3, x4, u, v, c);
  a += side(x4, x1, u, v, c);
  adt[i] = a / k.cfl;
}

// Edges [begin, end) of the edge arrays: all of them (atomic), or one colour's (coloured, the
// arrays permuted so that each colour's edges are contiguous).
template <bool SoA, bool Atomic>
__global__ void res_calc_kernel(int begin, int end, const int2* __restrict__ edge, const int2* __restrict__ ecell,
                                const double2* __restrict__ x, const double* __restrict__ q,
                                const double* __restrict__ adt, double* __restrict__ res, int ncell, flow_constants k) {
  const int e = begin + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (e >= end) return;
  const int2 nodes = __ldg(edge + e);
  const int2 cells = __ldg(ecell + e);
  const double2 x1 = __ldg(x + nodes.x), x2 = __ldg(x + nodes.y);
  double q1[4], q2[4];
  load_read_only<SoA>(q, cells.x, ncell, q1);
  load_read_only<SoA>(q, cells.y, ncell, q2);
  const double adt1 = __ldg(adt + cells.x), adt2 = __ldg(adt + cells.y);

  const double dx = x1.x - x2.x;
  const double dy = x1.y - x2.y;
  double ri = 1.0 / q1[0];
  const double p1 = k.gm1 * (q1[3] - 0.5 * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  const double vol1 = ri * (q1[1] * dy - q1[2] * dx);
  ri = 1.0 / q2[0];
  const double p2 = k.gm1 * (q2[3] - 0.5 * ri * (q2[1] * q2[1] + q2[2] * q2[2]));
  const double vol2 = ri * (q2[1] * dy - q2[2] * dx);
  const double mu = 0.5 * (adt1 + adt2) * k.eps;
  const double f[4] = {
      0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]),
      0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]),
      0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]),
      0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]),
  };
  increment<SoA, Atomic, 1>(res, cells.x, ncell, f);
  increment<SoA, Atomic, -1>(res, cells.y, ncell, f);
}

template <bool SoA, bool Atomic>
__global__ void bres_calc_kernel(int begin, int end, const int2* __restrict__ bedge, const int* __restrict__ becell,
                                 const int* __restrict__ bound, const double2* __restrict__ x,
                                 const double* __restrict__ q, const double* __restrict__ adt, double* __restrict__ res,
                                 int ncell, flow_constants k) {
  const int e = begin + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (e >= end) return;
  const int2 nodes = __ldg(bedge + e);
  const int c = __ldg(becell + e);
  const double2 x1 = __ldg(x + nodes.x), x2 = __ldg(x + nodes.y);
  double q1[4];
  load_read_only<SoA>(q, c, ncell, q1);

  const double dx = x1.x - x2.x;
  const double dy = x1.y - x2.y;
  double ri = 1.0 / q1[0];
  const double p1 = k.gm1 * (q1[3] - 0.5 * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  if (__ldg(bound + e) == 1) {
    // A wall: pressure only, on the two momentum components.
    increment_one<Atomic>(res + at<SoA>(c, 1, ncell), +p1 * dy);
    increment_one<Atomic>(res + at<SoA>(c, 2, ncell), -p1 * dx);
  } else {
    const double* qinf = k.qinf;
    const double vol1 = ri * (q1[1] * dy - q1[2] * dx);
    ri = 1.0 / qinf[0];
    const double p2 = k.gm1 * (qinf[3] - 0.5 * ri * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
    const double vol2 = ri * (qinf[1] * dy - qinf[2] * dx);
    const double mu = __ldg(adt + c) * k.eps;
    const double f[4] = {
        0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]),
        0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]),
        0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]),
        0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]),
    };
    increment<SoA, Atomic, 1>(res, c, ncell, f);
  }
}

// The sum over the block, in thread 0: shuffles within each warp, one shared slot per warp,
// shuffles again in the first warp. blockDim.x is a multiple of 32 and every thread calls it.
__device__ __forceinline__ double block_sum(double v) {
  __shared__ double warp_sums[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

// One cell a thread and one atomicAdd a block into *rms: on the H200 at OP2's size (2813 blocks
// of 256) this was as fast as a grid-stride loop over one resident wave (fewer atomics), or up
// to 3 us faster for AoS; the adds into one address did not show.
template <bool SoA>
__global__ void update_kernel(int ncell, const double* __restrict__ qold, double* __restrict__ q,
                              double* __restrict__ res, const double* __restrict__ adt, double* __restrict__ rms) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0.0;
  if (i < ncell) {
    double qo[4], r[4], qn[4];
    load_read_only<SoA>(qold, i, ncell, qo);
    // res is written below, so not through the read-only path.
    load<SoA>(res, i, ncell, r);
    const double adti = 1.0 / __ldg(adt + i);
    for (int n = 0; n < 4; ++n) {
      const double del = adti * r[n];
      qn[n] = qo[n] - del;
      sum += del * del;
    }
    store<SoA>(q, i, ncell, qn);
    store<SoA>(res, i, ncell, {0.0, 0.0, 0.0, 0.0});
  }
  // Every thread takes part in the block's sum, those past the end with 0.
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(rms, sum);
}

// ---------------------------------------------------------------------------------------------
// Host side

template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::size_t n) {
    if (n > 0) AIRFOIL_HAND_CHECK(cudaMalloc(&p_, n * sizeof(T)));
  }
  device_array(device_array&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
  device_array& operator=(device_array&& other) noexcept {
    std::swap(p_, other.p_);
    return *this;
  }
  ~device_array() {
    if (p_ != nullptr) cudaFree(p_);
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

class pinned_double {
 public:
  pinned_double() { AIRFOIL_HAND_CHECK(cudaMallocHost(&p_, sizeof(double))); }
  pinned_double(const pinned_double&) = delete;
  pinned_double& operator=(const pinned_double&) = delete;
  ~pinned_double() { cudaFreeHost(p_); }
  double* get() const { return p_; }

 private:
  double* p_ = nullptr;
};

class stream {
 public:
  stream() { AIRFOIL_HAND_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() { cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Elements in colour order and where each colour starts: greedy first fit in element order
// (each takes the lowest colour none of its cells has yet), colours tried 64 at a time with a
// bit mask per cell. The order within a colour is the mesh's, so a launch keeps its locality.
struct colouring {
  std::vector<int> order;
  std::vector<int> offsets;  // colour c is order[offsets[c]] .. order[offsets[c + 1] - 1]
};

colouring colour_by_cells(int n, int per, const int* cells, int ncell) {
  std::vector<int> colour(static_cast<std::size_t>(n), -1);
  std::vector<std::uint64_t> taken(static_cast<std::size_t>(ncell));
  int left = n, colours = 0;
  for (int base = 0; left > 0; base += 64) {
    std::fill(taken.begin(), taken.end(), 0);
    for (int e = 0; e < n; ++e) {
      if (colour[static_cast<std::size_t>(e)] >= 0) continue;
      const int* ec = cells + static_cast<std::size_t>(per) * static_cast<std::size_t>(e);
      std::uint64_t mask = 0;
      for (int j = 0; j < per; ++j) mask |= taken[static_cast<std::size_t>(ec[j])];
      if (mask == ~std::uint64_t{0}) continue;  // a later round's
      int bit = 0;
      while ((mask >> bit) & 1) ++bit;
      for (int j = 0; j < per; ++j) taken[static_cast<std::size_t>(ec[j])] |= std::uint64_t{1} << bit;
      colour[static_cast<std::size_t>(e)] = base + bit;
      colours = std::max(colours, base + bit + 1);
      --left;
    }
  }
  colouring out;
  out.offsets.assign(static_cast<std::size_t>(colours) + 1, 0);
  for (const int c : colour) ++out.offsets[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(colours); ++c) out.offsets[c + 1] += out.offsets[c];
  std::vector<int> next(out.offsets.begin(), out.offsets.end() - 1);
  out.order.resize(static_cast<std::size_t>(n));
  for (int e = 0; e < n; ++e) {
    int& slot = next[static_cast<std::size_t>(colour[static_cast<std::size_t>(e)])];
    out.order[static_cast<std::size_t>(slot++)] = e;
  }
  return out;
}

// values[per * order[i] + j] at per * i + j: a map's rows in colour order.
std::vector<int> permuted(const int* values, int per, const std::vector<int>& order) {
  std::vector<int> out(order.size() * static_cast<std::size_t>(per));
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (int j = 0; j < per; ++j) {
      out[i * static_cast<std::size_t>(per) + static_cast<std::size_t>(j)] =
          values[static_cast<std::size_t>(order[i]) * static_cast<std::size_t>(per) + static_cast<std::size_t>(j)];
    }
  }
  return out;
}

void check_indices(const char* what, const int* values, std::size_t count, int bound) {
  for (std::size_t i = 0; i < count; ++i) {
    if (values[i] < 0 || values[i] >= bound) {
      throw std::invalid_argument("airfoil_hand: " + std::string(what) + " entry " + std::to_string(i) + " is " +
                                  std::to_string(values[i]) + ", outside [0, " + std::to_string(bound) + ")");
    }
  }
}

// An event of the current device, destroyed with this.
class event {
 public:
  event() { AIRFOIL_HAND_CHECK(cudaEventCreate(&e_)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() { cudaEventDestroy(e_); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

enum loop_id { save_soln, adt_calc, res_calc, bres_calc, update, loop_count };
constexpr const char* loop_names[loop_count] = {"save_soln", "adt_calc", "res_calc", "bres_calc", "update"};

}  // namespace

double copy_bandwidth_bytes_per_s(std::size_t bytes) {
  if (bytes == 0) throw std::invalid_argument("copy_bandwidth_bytes_per_s: 0 bytes");
  device_array<unsigned char> from(bytes), to(bytes);
  const stream s;
  const event start, stop;
  // Written once so that the copy reads memory the device has mapped and touched.
  AIRFOIL_HAND_CHECK(cudaMemsetAsync(from.get(), 1, bytes, s.get()));
  AIRFOIL_HAND_CHECK(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice, s.get()));
  // The fastest copy: a floor computed from this should not be raised by one slow copy.
  float best_ms = 0.0f;
  for (int i = 0; i < 7; ++i) {
    AIRFOIL_HAND_CHECK(cudaEventRecord(start.get(), s.get()));
    AIRFOIL_HAND_CHECK(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice, s.get()));
    AIRFOIL_HAND_CHECK(cudaEventRecord(stop.get(), s.get()));
    AIRFOIL_HAND_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0.0f;
    AIRFOIL_HAND_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (i == 0 || ms < best_ms) best_ms = ms;
  }
  if (best_ms <= 0.0f) throw std::runtime_error("copy_bandwidth_bytes_per_s: the copies took no measurable time");
  return 2.0 * static_cast<double>(bytes) / (1e-3 * static_cast<double>(best_ms));
}

struct airfoil_hand::impl {
  airfoil_hand_options opt;
  int nnode, ncell, nedge, nbedge;
  flow_constants k{};
  std::vector<int> edge_offsets, bedge_offsets;  // colour starts, {0, n} without colour

  stream s;
  device_array<double2> x;
  device_array<int4> cell;
  device_array<int2> edge, ecell, bedge;
  device_array<int> becell, bound;
  device_array<double> q, qold, res, adt, rms;
  pinned_double rms_host;

  // Timing: event pairs are queued and read only when the totals are asked for (or when many
  // are queued), so that iterate() stays asynchronous while timing.
  bool timing = false;
  struct pending_pair {
    loop_id loop;
    cudaEvent_t start, stop;
  };
  std::vector<cudaEvent_t> spare_events;
  std::vector<pending_pair> pending;
  double seconds[loop_count] = {};

  impl(const int* counts, const double* x_in, const int* cell_in, const int* edge_in, const int* ecell_in,
       const int* bedge_in, const int* becell_in, const int* bound_in, const double consts[4], const double qinf[4],
       airfoil_hand_options o)
      : opt(o), nnode(counts[0]), ncell(counts[1]), nedge(counts[2]), nbedge(counts[3]) {
    if (nnode < 1 || ncell < 1 || nedge < 0 || nbedge < 0) {
      throw std::invalid_argument("airfoil_hand: counts " + std::to_string(nnode) + " " + std::to_string(ncell) + " " +
                                  std::to_string(nedge) + " " + std::to_string(nbedge) +
                                  ": nodes and cells must be at least 1, edges at least 0");
    }
    // Every index a kernel computes (4 * c + k, k * ncell + c, 2 * nedge) must fit an int.
    if (ncell > INT_MAX / 4 || nnode > INT_MAX / 2 || nedge > INT_MAX / 2 || nbedge > INT_MAX / 2) {
      throw std::invalid_argument("airfoil_hand: counts too large for 32-bit indices");
    }
    if (opt.block < 32 || opt.block > 1024 || opt.block % 32 != 0) {
      throw std::invalid_argument("airfoil_hand: block " + std::to_string(opt.block) +
                                  " is not a multiple of 32 in [32, 1024]");
    }
    const auto n = [](int count, int per) { return static_cast<std::size_t>(count) * static_cast<std::size_t>(per); };
    check_indices("cell", cell_in, n(ncell, 4), nnode);
    check_indices("edge", edge_in, n(nedge, 2), nnode);
    check_indices("ecell", ecell_in, n(nedge, 2), ncell);
    check_indices("bedge", bedge_in, n(nbedge, 2), nnode);
    check_indices("becell", becell_in, n(nbedge, 1), ncell);
    k = {consts[0], consts[1], consts[2], consts[3], {qinf[0], qinf[1], qinf[2], qinf[3]}};

    x = device_array<double2>(static_cast<std::size_t>(nnode));
    cell = device_array<int4>(static_cast<std::size_t>(ncell));
    edge = device_array<int2>(static_cast<std::size_t>(nedge));
    ecell = device_array<int2>(static_cast<std::size_t>(nedge));
    bedge = device_array<int2>(static_cast<std::size_t>(nbedge));
    becell = device_array<int>(static_cast<std::size_t>(nbedge));
    bound = device_array<int>(static_cast<std::size_t>(nbedge));
    q = device_array<double>(n(ncell, 4));
    qold = device_array<double>(n(ncell, 4));
    res = device_array<double>(n(ncell, 4));
    adt = device_array<double>(static_cast<std::size_t>(ncell));
    rms = device_array<double>(1);

    const cudaStream_t st = s.get();
    const auto upload = [st](void* to, const void* from, std::size_t bytes) {
      if (bytes > 0) AIRFOIL_HAND_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, st));
    };
    upload(x.get(), x_in, n(nnode, 2) * sizeof(double));
    upload(cell.get(), cell_in, n(ncell, 4) * sizeof(int));

    // The host copies stay alive until the stream is synchronised below.
    std::vector<int> edge_p, ecell_p, bedge_p, becell_p, bound_p;
    const int *edge_up = edge_in, *ecell_up = ecell_in, *bedge_up = bedge_in, *becell_up = becell_in,
              *bound_up = bound_in;
    if (opt.colour) {
      const colouring ce = colour_by_cells(nedge, 2, ecell_in, ncell);
      edge_p = permuted(edge_in, 2, ce.order);
      ecell_p = permuted(ecell_in, 2, ce.order);
      edge_up = edge_p.data(), ecell_up = ecell_p.data();
      edge_offsets = ce.offsets;
      const colouring cb = colour_by_cells(nbedge, 1, becell_in, ncell);
      bedge_p = permuted(bedge_in, 2, cb.order);
      becell_p = permuted(becell_in, 1, cb.order);
      bound_p = permuted(bound_in, 1, cb.order);
      bedge_up = bedge_p.data(), becell_up = becell_p.data(), bound_up = bound_p.data();
      bedge_offsets = cb.offsets;
    } else {
      edge_offsets = {0, nedge};
      bedge_offsets = {0, nbedge};
    }
    upload(edge.get(), edge_up, n(nedge, 2) * sizeof(int));
    upload(ecell.get(), ecell_up, n(nedge, 2) * sizeof(int));
    upload(bedge.get(), bedge_up, n(nbedge, 2) * sizeof(int));
    upload(becell.get(), becell_up, n(nbedge, 1) * sizeof(int));
    upload(bound.get(), bound_up, n(nbedge, 1) * sizeof(int));

    std::vector<double> q0(n(ncell, 4));
    for (int c = 0; c < ncell; ++c) {
      for (int j = 0; j < 4; ++j) {
        const std::size_t i =
            opt.soa ? n(j, ncell) + static_cast<std::size_t>(c) : n(c, 4) + static_cast<std::size_t>(j);
        q0[i] = qinf[j];
      }
    }
    upload(q.get(), q0.data(), q0.size() * sizeof(double));
    AIRFOIL_HAND_CHECK(cudaMemsetAsync(qold.get(), 0, n(ncell, 4) * sizeof(double), st));
    AIRFOIL_HAND_CHECK(cudaMemsetAsync(res.get(), 0, n(ncell, 4) * sizeof(double), st));
    AIRFOIL_HAND_CHECK(cudaMemsetAsync(adt.get(), 0, n(ncell, 1) * sizeof(double), st));
    AIRFOIL_HAND_CHECK(cudaMemsetAsync(rms.get(), 0, sizeof(double), st));
    AIRFOIL_HAND_CHECK(cudaStreamSynchronize(st));
  }

  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  ~impl() {
    // Nothing may be freed under a running kernel; errors here have nowhere to go.
    cudaStreamSynchronize(s.get());
    for (const pending_pair& p : pending) {
      cudaEventDestroy(p.start);
      cudaEventDestroy(p.stop);
    }
    for (const cudaEvent_t e : spare_events) cudaEventDestroy(e);
  }

  int blocks(int count) const { return (count + opt.block - 1) / opt.block; }

  cudaEvent_t take_event() {
    cudaEvent_t e = nullptr;
    if (spare_events.empty()) {
      AIRFOIL_HAND_CHECK(cudaEventCreate(&e));
    } else {
      e = spare_events.back();
      spare_events.pop_back();
    }
    return e;
  }

  cudaEvent_t begin(loop_id) {
    if (!timing) return nullptr;
    const cudaEvent_t start = take_event();
    AIRFOIL_HAND_CHECK(cudaEventRecord(start, s.get()));
    return start;
  }

  void end(loop_id loop, cudaEvent_t start) {
    if (!timing) return;
    const cudaEvent_t stop = take_event();
    AIRFOIL_HAND_CHECK(cudaEventRecord(stop, s.get()));
    pending.push_back({loop, start, stop});
    // Bounds the events alive: a wait every few hundred iterations.
    if (pending.size() >= 4096) collect();
  }

  void collect() {
    for (const pending_pair& p : pending) {
      float ms = 0.0f;
      AIRFOIL_HAND_CHECK(cudaEventSynchronize(p.stop));
      AIRFOIL_HAND_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
      seconds[p.loop] += 1e-3 * static_cast<double>(ms);
    }
    for (const pending_pair& p : pending) {
      spare_events.push_back(p.start);
      spare_events.push_back(p.stop);
    }
    pending.clear();
  }

  template <class... Params, class... Args>
  void launch(const char* name, void (*kernel)(Params...), int grid, Args... args) {
    kernel<<<grid, opt.block, 0, s.get()>>>(args...);
    check(cudaGetLastError(), name);
  }

  template <bool SoA, bool Atomic>
  void step() {
    cudaEvent_t t = begin(adt_calc);
    launch("adt_calc_kernel<<<>>>", adt_calc_kernel<SoA>, blocks(ncell), ncell, cell.get(), x.get(),
           static_cast<const double*>(q.get()), adt.get(), k);
    end(adt_calc, t);

    t = begin(res_calc);
    for (std::size_t c = 0; c + 1 < edge_offsets.size(); ++c) {
      const int first = edge_offsets[c], last = edge_offsets[c + 1];
      if (first == last) continue;
      launch("res_calc_kernel<<<>>>", res_calc_kernel<SoA, Atomic>, blocks(last - first), first, last, edge.get(),
             ecell.get(), x.get(), static_cast<const double*>(q.get()), static_cast<const double*>(adt.get()),
             res.get(), ncell, k);
    }
    end(res_calc, t);

    t = begin(bres_calc);
    for (std::size_t c = 0; c + 1 < bedge_offsets.size(); ++c) {
      const int first = bedge_offsets[c], last = bedge_offsets[c + 1];
      if (first == last) continue;
      launch("bres_calc_kernel<<<>>>", bres_calc_kernel<SoA, Atomic>, blocks(last - first), first, last, bedge.get(),
             becell.get(), bound.get(), x.get(), static_cast<const double*>(q.get()),
             static_cast<const double*>(adt.get()), res.get(), ncell, k);
    }
    end(bres_calc, t);

    AIRFOIL_HAND_CHECK(cudaMemsetAsync(rms.get(), 0, sizeof(double), s.get()));
    t = begin(update);
    launch("update_kernel<<<>>>", update_kernel<SoA>, blocks(ncell), ncell, static_cast<const double*>(qold.get()),
           q.get(), res.get(), static_cast<const double*>(adt.get()), rms.get());
    end(update, t);
  }

  template <bool SoA, bool Atomic>
  void iterate() {
    cudaEvent_t t = begin(save_soln);
    launch("save_soln_kernel<<<>>>", save_soln_kernel, blocks(2 * ncell), 2 * ncell,
           reinterpret_cast<const double2*>(q.get()), reinterpret_cast<double2*>(qold.get()));
    end(save_soln, t);
    for (int i = 0; i < 2; ++i) step<SoA, Atomic>();
  }
};

airfoil_hand::airfoil_hand(const int* counts, const double* x, const int* cell, const int* edge, const int* ecell,
                           const int* bedge, const int* becell, const int* bound, const double consts[4],
                           const double qinf[4], airfoil_hand_options options)
    : impl_(std::make_unique<impl>(counts, x, cell, edge, ecell, bedge, becell, bound, consts, qinf, options)) {}

airfoil_hand::~airfoil_hand() = default;
airfoil_hand::airfoil_hand(airfoil_hand&&) noexcept = default;
airfoil_hand& airfoil_hand::operator=(airfoil_hand&&) noexcept = default;

void airfoil_hand::iterate() {
  impl& m = *impl_;
  if (m.opt.soa) {
    m.opt.colour ? m.iterate<true, false>() : m.iterate<true, true>();
  } else {
    m.opt.colour ? m.iterate<false, false>() : m.iterate<false, true>();
  }
}

double airfoil_hand::rms() {
  impl& m = *impl_;
  AIRFOIL_HAND_CHECK(cudaMemcpyAsync(m.rms_host.get(), m.rms.get(), sizeof(double), cudaMemcpyDeviceToHost, m.s.get()));
  AIRFOIL_HAND_CHECK(cudaStreamSynchronize(m.s.get()));
  return std::sqrt(*m.rms_host.get() / m.ncell);
}

void airfoil_hand::q(double* out) {
  impl& m = *impl_;
  const std::size_t count = 4 * static_cast<std::size_t>(m.ncell);
  if (!m.opt.soa) {
    AIRFOIL_HAND_CHECK(cudaMemcpyAsync(out, m.q.get(), count * sizeof(double), cudaMemcpyDeviceToHost, m.s.get()));
    AIRFOIL_HAND_CHECK(cudaStreamSynchronize(m.s.get()));
    return;
  }
  std::vector<double> soa(count);
  AIRFOIL_HAND_CHECK(cudaMemcpyAsync(soa.data(), m.q.get(), count * sizeof(double), cudaMemcpyDeviceToHost, m.s.get()));
  AIRFOIL_HAND_CHECK(cudaStreamSynchronize(m.s.get()));
  const std::size_t n = static_cast<std::size_t>(m.ncell);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t j = 0; j < 4; ++j) out[4 * c + j] = soa[j * n + c];
  }
}

void airfoil_hand::synchronize() { AIRFOIL_HAND_CHECK(cudaStreamSynchronize(impl_->s.get())); }

void airfoil_hand::time_kernels(bool on) {
  impl& m = *impl_;
  if (on) {
    // Pairs queued before now belong to the old totals: drop them with the totals.
    m.collect();
    std::fill(std::begin(m.seconds), std::end(m.seconds), 0.0);
  }
  m.timing = on;
}

std::vector<std::pair<std::string, double>> airfoil_hand::kernel_seconds() const {
  impl_->collect();
  std::vector<std::pair<std::string, double>> out;
  for (int i = 0; i < loop_count; ++i) out.emplace_back(loop_names[i], impl_->seconds[i]);
  return out;
}

int airfoil_hand::edge_colours() const {
  return impl_->opt.colour ? static_cast<int>(impl_->edge_offsets.size()) - 1 : 0;
}
int airfoil_hand::bedge_colours() const {
  return impl_->opt.colour ? static_cast<int>(impl_->bedge_offsets.size()) - 1 : 0;
}
const airfoil_hand_options& airfoil_hand::options() const { return impl_->opt; }

}  // namespace parloop_bench
