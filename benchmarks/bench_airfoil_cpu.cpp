// SPDX-License-Identifier: MIT
// OP2's Airfoil (examples/airfoil) on the CPU: parloop's host, threads and OpenCL backends against
// the same solver written by hand (airfoil_cpu.hpp: OP2's sequential back end, and its OpenMP one
// with block colouring), in one run on one generated NACA0012 mesh:
//  - the whole iteration: each variant is timed over N iterations, the median of three
//    repetitions, the variants alternating in a rotated order; each repetition starts from the
//    free stream in a new solver and runs one untimed iteration first (parloop copies and plans
//    at a loop's first call, as the hand-written solvers do when they are made).
//  - correctness: parloop's host backend gives the sequential solver's bits (q after the N + 1
//    iterations compared value for value); every other variant's rms agrees with the
//    sequential one's to 1e-9 relative (threads add increments in another order), or the
//    program fails.
//  - per loop: each loop alone, its calls of N iterations back to back on a fresh solver.
// Ratios are against the sequential solver, and against the OpenMP one at the same threads.
// The threads backend and the OpenMP solver run at each count of --threads, with blocks of
// --block elements (both), and the threads backend again with each loop's block autotuned.
// Usage: bench_airfoil_cpu [--size CELLS] [--iterations N] [--threads 1,2,...] [--block B]
//                          [--csv FILE] [--no-per-loop] [--no-opencl]
#include <parloop/parloop.hpp>

#include "../examples/airfoil/flow.hpp"
#include "../examples/airfoil/kernels_dsl.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "../examples/airfoil/solver.hpp"
#include "airfoil_cpu.hpp"
#include "common.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace pl = parloop;

namespace {

using parloop_bench::median;
using parloop_bench::median_seconds;
using parloop_bench::cpu::loop_count;

constexpr std::array<const char*, loop_count> loop_names = {"save_soln", "adt_calc", "res_calc", "bres_calc", "update"};
constexpr std::array<int, loop_count> calls_per_iteration = {1, 2, 2, 2, 2};
constexpr int repetitions = 3;
constexpr double rms_tolerance = 1e-9;  // relative

// ---- The variants behind one interface ----

class runner {
 public:
  runner(std::string name, int threads) : name_(std::move(name)), threads_(threads) {}
  virtual ~runner() = default;
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  const std::string& name() const { return name_; }
  // The threads it runs on; 0 where that is the device's affair (OpenCL).
  int threads() const { return threads_; }
  // A new solver at the free stream, the previous one freed first.
  virtual void start() = 0;
  virtual void iterate() = 0;
  virtual void run_loop(int l) = 0;
  virtual void synchronize() {}
  virtual double rms() = 0;
  virtual std::vector<double> q() = 0;
  virtual void stop() = 0;

 private:
  std::string name_;
  int threads_;
};

parloop_bench::cpu::mesh_view view_of(const airfoil::mesh& m) {
  return {m.nnode,       m.ncell,        m.nedge,        m.nbedge,        m.x.data(),    m.cell.data(),
          m.edge.data(), m.ecell.data(), m.bedge.data(), m.becell.data(), m.bound.data()};
}

parloop_bench::cpu::constants constants_of(const airfoil::flow& c) {
  return {c.gam, c.gm1, c.cfl, c.eps, {c.qinf[0], c.qinf[1], c.qinf[2], c.qinf[3]}};
}

// A hand-written solver (airfoil_cpu.hpp) made anew by `make` at each start.
template <class Solver>
class hand_runner final : public runner {
 public:
  hand_runner(std::string name, int threads, std::function<std::unique_ptr<Solver>()> make)
      : runner(std::move(name), threads), make_(std::move(make)) {}
  void start() override {
    solver_.reset();
    solver_ = make_();
  }
  void iterate() override { solver_->iterate(); }
  void run_loop(int l) override { solver_->run_loop(l); }
  double rms() override { return solver_->rms(); }
  std::vector<double> q() override { return solver_->q(); }
  void stop() override { solver_.reset(); }

 private:
  std::function<std::unique_ptr<Solver>()> make_;
  std::unique_ptr<Solver> solver_;
};

class parloop_runner final : public runner {
 public:
  parloop_runner(std::string name, int threads, pl::Runtime rt, const airfoil::mesh& m, const airfoil::flow& c)
      : runner(std::move(name), threads), rt_(std::move(rt)), mesh_(m), flow_(c), kernels_(airfoil::dsl_kernels(c)) {}
  void start() override {
    solver_.reset();
    solver_.emplace(rt_, mesh_, flow_);
  }
  void iterate() override { solver_->iterate(kernels_); }
  void run_loop(int l) override {
    switch (l) {
      case 0: solver_->save_soln(kernels_); break;
      case 1: solver_->adt_calc(kernels_); break;
      case 2: solver_->res_calc(kernels_); break;
      case 3: solver_->bres_calc(kernels_); break;
      default: solver_->update(kernels_); break;
    }
  }
  void synchronize() override { rt_.synchronize(); }
  double rms() override { return solver_->rms(); }
  std::vector<double> q() override {
    const auto v = solver_->q().host();
    return {v.begin(), v.end()};
  }
  void stop() override { solver_.reset(); }

 private:
  pl::Runtime rt_;
  const airfoil::mesh& mesh_;
  const airfoil::flow& flow_;
  decltype(airfoil::dsl_kernels(std::declval<const airfoil::flow&>())) kernels_;
  std::optional<airfoil::solver> solver_;
};

// ---- Timing ----

struct timed_run {
  double seconds;
  double rms;  // after the N + 1 iterations
  std::vector<double> q;
};

timed_run time_iterations(runner& r, int iterations, bool keep_q) {
  r.start();
  r.iterate();
  r.synchronize();
  const double seconds = median_seconds(1, [&] {
    for (int i = 0; i < iterations; ++i) r.iterate();
    r.synchronize();
  });
  timed_run t{seconds, r.rms(), keep_q ? r.q() : std::vector<double>{}};
  r.stop();
  return t;
}

// Seconds per call of each loop: its calls of `iterations` iterations back to back after an
// untimed iteration on a fresh solver (the state drifts but stays finite; no loop's work depends
// on the values).
std::array<double, loop_count> time_loops(runner& r, int iterations) {
  std::array<double, loop_count> t{};
  for (int l = 0; l < loop_count; ++l) {
    r.start();
    r.iterate();
    r.synchronize();
    const int calls = iterations * calls_per_iteration[static_cast<std::size_t>(l)];
    t[static_cast<std::size_t>(l)] = median_seconds(1,
                                                    [&] {
                                                      for (int c = 0; c < calls; ++c) r.run_loop(l);
                                                      r.synchronize();
                                                    }) /
                                     calls;
    r.stop();
  }
  return t;
}

// ---- Options ----

struct options {
  long long size = 60000;
  int iterations = 200;
  std::vector<int> threads;
  int block = 256;
  std::optional<std::string> csv;
  bool per_loop = true;
  bool opencl = true;
};

int positive(std::string_view flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < 1 || v > 1'000'000'000) {
    throw std::invalid_argument(std::string(flag) + " takes a positive integer, not '" + text + "'");
  }
  return static_cast<int>(v);
}

std::vector<int> thread_list(const char* text) {
  std::vector<int> out;
  std::string all(text);
  std::size_t at = 0;
  while (at <= all.size()) {
    const std::size_t comma = std::min(all.find(',', at), all.size());
    out.push_back(positive("--threads", all.substr(at, comma - at).c_str()));
    at = comma + 1;
  }
  return out;
}

// 1, 2, 4, ... up to the cores this process may use, and that count itself.
std::vector<int> default_threads() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> out;
  for (int t = 1; t < cores; t *= 2) out.push_back(t);
  out.push_back(cores);
  return out;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--size")
      o.size = positive(a, value());
    else if (a == "--iterations")
      o.iterations = positive(a, value());
    else if (a == "--threads")
      o.threads = thread_list(value());
    else if (a == "--block")
      o.block = positive(a, value());
    else if (a == "--csv")
      o.csv = value();
    else if (a == "--no-per-loop")
      o.per_loop = false;
    else if (a == "--no-opencl")
      o.opencl = false;
    else
      throw std::invalid_argument("unknown option '" + std::string(a) + "' (see the top of bench_airfoil_cpu.cpp)");
  }
  if (o.threads.empty()) o.threads = default_threads();
  return o;
}

// The threads backend on `threads` threads, with blocks of `block` elements where it colours.
pl::Runtime open_threads(int threads, int block) {
  pl::settings s = pl::settings::from_environment();
  s.backend = pl::backend_kind::threads;
  s.threads = threads;
  pl::Runtime rt = pl::Runtime::open(s);
  rt.state()->thread_block = block;
  return rt;
}

// How an OpenCL variant departs from the device's defaults: conflicts and layout, autotuning.
struct opencl_variant {
  const char* name;
  std::optional<pl::conflicts> conflicts;
  std::optional<pl::dat_layout> layout;
  bool autotune = false;
};

// The OpenCL runtime of a CPU device as `v` says, or nothing (and why).
std::optional<pl::Runtime> open_opencl(const opencl_variant& v) {
  for (const pl::backend_status& s : pl::backends()) {
    if (s.kind == pl::backend_kind::opencl && s.available && !s.cpu_device) {
      std::printf("no OpenCL variant: OpenCL's device here is not a CPU\n");
      return std::nullopt;
    }
  }
  pl::settings s = pl::settings::from_environment();
  s.backend = pl::backend_kind::opencl;
  if (v.layout) s.dat_layout = v.layout;
  std::optional<pl::Runtime> rt;
  try {
    rt = pl::Runtime::open(s);
  } catch (const pl::backend_unavailable& e) {
    std::printf("no OpenCL variant: %s\n", e.what());
  }
  if (rt && v.conflicts) rt->set_default_conflicts(*v.conflicts);
  if (rt) rt->set_autotune(v.autotune);
  return rt;
}

int run(const options& o) {
  parloop_bench::check_csv_folder(o.csv);
  const airfoil::mesh m = airfoil::make_naca0012(o.size);
  const airfoil::flow c;
  const int n = o.iterations;
  std::printf(
      "Airfoil on the CPU, parloop against hand-written C++: NACA0012 mesh of %d nodes, %d cells, %d edges, %d "
      "boundary edges;\n%d timed iterations per repetition (after one untimed), median of %d repetitions, the "
      "variants alternating; %u hardware threads\n",
      m.nnode, m.ncell, m.nedge, m.nbedge, n, repetitions, std::thread::hardware_concurrency());
  std::fflush(stdout);

  std::vector<std::unique_ptr<runner>> runners;
  const parloop_bench::cpu::mesh_view view = view_of(m);
  const parloop_bench::cpu::constants constants = constants_of(c);
  using parloop_bench::cpu::airfoil_omp;
  using parloop_bench::cpu::airfoil_seq;
  runners.push_back(std::make_unique<hand_runner<airfoil_seq>>(
      "hand-seq", 1, [&] { return std::make_unique<airfoil_seq>(view, constants); }));
  runners.push_back(
      std::make_unique<parloop_runner>("parloop-host", 1, pl::Runtime::open(pl::backend_kind::host), m, c));
  for (const int t : o.threads) {
    runners.push_back(std::make_unique<hand_runner<airfoil_omp>>(
        "hand-omp", t, [&, t] { return std::make_unique<airfoil_omp>(view, constants, t, o.block); }));
    runners.push_back(std::make_unique<parloop_runner>("parloop-threads", t, open_threads(t, o.block), m, c));
    // Each loop that runs in blocks times the block sizes at its first (untimed) call.
    pl::Runtime tuned = open_threads(t, o.block);
    tuned.set_autotune(true);
    runners.push_back(std::make_unique<parloop_runner>("parloop-threads-autotuned", t, tuned, m, c));
  }
  if (o.opencl) {
    // The device's defaults (a CPU's: colours, dats by elements), a GPU's, OP2's two-level plan,
    // and each loop's launch autotuned.
    for (const opencl_variant& v :
         {opencl_variant{"parloop-opencl", {}, {}},
          opencl_variant{"parloop-opencl-atomics-soa", pl::conflicts::atomics, pl::dat_layout::soa},
          opencl_variant{"parloop-opencl-blocks", pl::conflicts::blocks, {}},
          opencl_variant{"parloop-opencl-autotuned", {}, {}, true}}) {
      if (auto rt = open_opencl(v)) {
        if (runners.back()->name().find("opencl") == std::string::npos) {
          std::printf("OpenCL device: %s\n", rt->device_name().c_str());
        }
        runners.push_back(std::make_unique<parloop_runner>(v.name, 0, *rt, m, c));
      }
    }
  }
  const std::size_t count = runners.size();

  // Untimed: compiles OpenCL kernels and brings every code path in.
  for (const std::unique_ptr<runner>& r : runners) (void)time_iterations(*r, 1, false);
  std::vector<std::vector<double>> seconds(count), rms(count);
  std::vector<std::vector<double>> q(count);
  for (int rep = 0; rep < repetitions; ++rep) {
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t i = (j + static_cast<std::size_t>(rep)) % count;
      timed_run t = time_iterations(*runners[i], n, rep == 0 && i < 2);
      seconds[i].push_back(t.seconds);
      rms[i].push_back(t.rms);
      if (rep == 0 && i < 2) q[i] = std::move(t.q);
    }
  }
  std::vector<std::optional<std::array<double, loop_count>>> loops(count);
  if (o.per_loop) {
    for (std::size_t i = 0; i < count; ++i) loops[i] = time_loops(*runners[i], n);
  }

  bool ok = true;
  const double reference = rms[0][0];
  for (std::size_t i = 0; i < count; ++i) {
    for (int rep = 0; rep < repetitions; ++rep) {
      const double v = rms[i][static_cast<std::size_t>(rep)];
      if (!parloop_bench::agrees(v, reference, rms_tolerance)) {
        std::printf(
            "WRONG: %s (%d threads), repetition %d: rms %.17g against %.17g (relative difference %.2e > %.0e)\n",
            runners[i]->name().c_str(), runners[i]->threads(), rep + 1, v, reference,
            std::fabs(v - reference) / std::fabs(reference), rms_tolerance);
        ok = false;
      }
    }
  }
  // The host backend is the sequential loop: the same operations in the same order.
  const bool same_bits =
      q[0].size() == q[1].size() && std::memcmp(q[0].data(), q[1].data(), q[0].size() * sizeof(double)) == 0;
  if (!same_bits) {
    std::printf("WRONG: parloop-host's q differs from hand-seq's in its bits\n");
    ok = false;
  }

  std::vector<double> t(count);
  for (std::size_t i = 0; i < count; ++i) t[i] = median(seconds[i]) / n;
  const auto omp_at = [&](int threads) -> std::optional<double> {
    for (std::size_t i = 0; i < count; ++i) {
      if (runners[i]->name() == "hand-omp" && runners[i]->threads() == threads) return t[i];
    }
    return std::nullopt;
  };
  std::printf(
      "\nwhole iterations (rms after %d iterations: %.10e; every variant within %.0e: %s; parloop-host's q "
      "bit-identical to hand-seq's: %s)\n",
      n + 1, reference, rms_tolerance, ok ? "yes" : "NO", same_bits ? "yes" : "NO");
  std::printf("  %-26s %8s %10s %10s %12s\n", "variant", "threads", "ms / it", "/ hand-seq", "/ hand-omp");
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<double> omp = runners[i]->threads() > 0 ? omp_at(runners[i]->threads()) : std::nullopt;
    std::printf("  %-26s %8d %10.3f %10.3f", runners[i]->name().c_str(), runners[i]->threads(), 1e3 * t[i],
                t[i] / t[0]);
    if (omp)
      std::printf(" %12.3f\n", t[i] / *omp);
    else
      std::printf(" %12s\n", "-");
  }
  if (o.per_loop) {
    std::printf("\nper loop, microseconds per call (ratio to hand-seq), each loop alone over %d iterations\n", n);
    std::printf("  %-26s %8s", "variant", "threads");
    for (const char* name : loop_names) std::printf(" %18s", name);
    std::printf("\n");
    for (std::size_t i = 0; i < count; ++i) {
      std::printf("  %-26s %8d", runners[i]->name().c_str(), runners[i]->threads());
      for (std::size_t l = 0; l < loop_count; ++l) {
        std::printf(" %9.1f (%5.2fx)", 1e6 * (*loops[i])[l], (*loops[i])[l] / (*loops[0])[l]);
      }
      std::printf("\n");
    }
  }
  // One row per variant and loop ("total": an iteration): seconds per call.
  if (o.csv) {
    std::ofstream out(*o.csv);
    out << "variant,threads,loop,seconds\n";
    for (std::size_t i = 0; i < count; ++i) {
      out << runners[i]->name() << ',' << runners[i]->threads() << ",total," << t[i] << '\n';
      if (!loops[i]) continue;
      for (std::size_t l = 0; l < loop_count; ++l) {
        out << runners[i]->name() << ',' << runners[i]->threads() << ',' << loop_names[l] << ',' << (*loops[i])[l]
            << '\n';
      }
    }
    out.close();
    if (!out) throw std::runtime_error("--csv " + *o.csv + ": could not be written");
    std::printf("\nwrote %s\n", o.csv->c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_airfoil_cpu: %s\n", e.what());
    return 1;
  }
}
