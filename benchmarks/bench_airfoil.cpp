// SPDX-License-Identifier: MIT
// OP2's Airfoil (examples/airfoil) in parloop on CUDA against the same solver written by hand in
// CUDA (airfoil_hand.hpp), in one run on one GPU, on one NACA0012 mesh (the generated C-mesh of
// OP2's counts, an O-grid, or a mesh file; parloop's loops renumbered for locality or not, the
// hand-written solver in the mesh's own numbering):
//  - the whole iteration: each variant (parloop's DSL kernels and OP2's C kernels, its ways of
//    keeping increments through maps apart; the hand-written AoS and SoA layouts, atomics and
//    colours) is timed over N iterations, the median of three repetitions, the variants
//    alternating in a rotated order. Each repetition starts from the free stream in a new
//    solver, runs one untimed iteration (parloop copies the dats and maps to the device and
//    colours the maps at their first loop: the hand-written solver does that when it is made),
//    then times N iterations and the wait for them. Ratios are against the best hand-written
//    variant and against the memory floor: the bytes an iteration must move at least over the
//    device's copy bandwidth, measured here.
//  - correctness: every repetition's rms after its N + 1 iterations agrees with parloop's
//    (DSL, atomics) to 1e-9 relative, or the program fails.
//  - per loop: the hand-written variants from cudaEvent pairs around each loop, in a repetition
//    of their own; parloop's by timing each loop alone, its calls of N iterations back to back on
//    a fresh solver and then one wait (the device's time, the launches hidden behind the work
//    but for the smallest loop).
// Usage: bench_airfoil [--size CELLS] [--grid c|o] [--mesh FILE] [--renumber] [--iterations N] [--csv FILE]
//                      [--no-per-loop]
#include <parloop/parloop.hpp>

#include "../examples/airfoil/arguments.hpp"
#include "../examples/airfoil/flow.hpp"
#include "../examples/airfoil/kernels_c.hpp"
#include "../examples/airfoil/kernels_dsl.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "../examples/airfoil/o_grid.hpp"
#include "../examples/airfoil/solver.hpp"
#include "airfoil_hand.hpp"
#include "common.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

namespace pl = parloop;

namespace {

using parloop_bench::median;
using parloop_bench::median_seconds;

// ---- What is measured ----

enum class kernel_kind { dsl, c };

struct parloop_variant {
  kernel_kind kernels;
  pl::conflicts conflicts;
  pl::dat_layout layout = pl::dat_layout::soa;
  // Each loop's launch chosen by timing (pl::autotune); `conflicts` is then only the default.
  bool tuned = false;
};

// Every parloop variant; the first is the reference of the correctness check. A new way of
// keeping increments apart (pl::conflicts) is one more row here. The layout by elements (aos)
// shows what keeping dats by components (the default) gains; the tuned variants, what
// autotuning chooses on this device among strategies, block sizes, atomics and colours.
constexpr parloop_variant parloop_variants[] = {
    {kernel_kind::dsl, pl::conflicts::atomics},
    {kernel_kind::dsl, pl::conflicts::colors},
    {kernel_kind::dsl, pl::conflicts::blocks},
    {kernel_kind::c, pl::conflicts::atomics},
    {kernel_kind::c, pl::conflicts::colors},
    {kernel_kind::dsl, pl::conflicts::atomics, pl::dat_layout::aos},
    {kernel_kind::c, pl::conflicts::atomics, pl::dat_layout::aos},
    {kernel_kind::dsl, pl::conflicts::atomics, pl::dat_layout::soa, true},
    {kernel_kind::c, pl::conflicts::atomics, pl::dat_layout::soa, true},
};

constexpr parloop_bench::airfoil_hand_options hand_variants[] = {
    {.soa = false, .colour = false, .block = 256},
    {.soa = false, .colour = true, .block = 256},
    {.soa = true, .colour = false, .block = 256},
    {.soa = true, .colour = true, .block = 256},
};

std::string variant_name(const parloop_variant& v) {
  return std::string("parloop-") + (v.kernels == kernel_kind::dsl ? "dsl-" : "c-") +
         (v.tuned ? std::string("tuned") : std::string(pl::to_string(v.conflicts))) +
         (v.layout == pl::dat_layout::aos ? "-aos" : "");
}

// "colors" as parloop says it, so that the two columns of names read alike.
std::string variant_name(const parloop_bench::airfoil_hand_options& o) {
  return std::string("hand-") + (o.soa ? "soa-" : "aos-") + (o.colour ? "colors" : "atomics");
}

// The loops of an iteration, in the order of the kernel tuples and of kernel_seconds(), and how
// many times each runs per iteration (save_soln once, the others in each of the two steps).
constexpr int loop_count = 5;
constexpr std::array<const char*, loop_count> loop_names = {"save_soln", "adt_calc", "res_calc", "bres_calc", "update"};
constexpr std::array<int, loop_count> calls_per_iteration = {1, 2, 2, 2, 2};

constexpr int warm_up_iterations = 20;
constexpr int repetitions = 3;
constexpr double rms_tolerance = 1e-9;  // relative
constexpr std::size_t copy_bytes = std::size_t{1} << 30;

struct loop_counts {
  std::uint64_t calls = 0;
  double seconds = 0.0;
};
using loop_table = std::array<loop_counts, loop_count>;

// ---- The variants behind one interface ----

class runner {
 public:
  explicit runner(std::string name) : name_(std::move(name)) {}
  virtual ~runner() = default;
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  const std::string& name() const { return name_; }
  virtual bool hand_written() const = 0;
  // A new solver at the free stream; the previous one is freed first, so that only one
  // variant's arrays are on the device at a time.
  virtual void start() = 0;
  virtual void iterate() = 0;
  virtual void synchronize() = 0;
  virtual double rms() = 0;
  virtual void stop() = 0;
  // Each loop's calls in `iterations` iterations and their time, on a fresh solver.
  virtual loop_table per_loop(int iterations) = 0;

 private:
  std::string name_;
};

template <class Kernels>
class parloop_runner final : public runner {
 public:
  parloop_runner(std::string name, pl::Runtime& rt, const airfoil::mesh& m, const airfoil::flow& c, Kernels kernels,
                 pl::conflicts conflicts, bool tuned, bool renumber)
      : runner(std::move(name)),
        rt_(rt),
        mesh_(m),
        flow_(c),
        kernels_(std::move(kernels)),
        conflicts_(conflicts),
        tuned_(tuned),
        renumber_(renumber) {}

  bool hand_written() const override { return false; }
  void start() override {
    solver_.reset();
    // The runtime's defaults are what the solver's loops take; the variants take turns on it.
    // A tuned variant's loops are timed at their first call, in the untimed warm-up.
    rt_.set_default_conflicts(conflicts_);
    rt_.set_autotune(tuned_);
    const airfoil::mesh_handles h = airfoil::on_runtime(rt_, mesh_);
    if (renumber_) pl::renumber(h.cells);
    solver_.emplace(rt_, h, flow_);
  }
  void iterate() override { solver_->iterate(kernels_); }
  void synchronize() override { rt_.synchronize(); }
  double rms() override { return solver_->rms(); }
  void stop() override { solver_.reset(); }
  // Each loop alone: after an untimed iteration on a fresh solver (copies, colourings), its
  // calls of the iterations back to back, then one wait. The state drifts (res only grows, the
  // rms is not reset) but stays finite, and no loop's work depends on the values.
  loop_table per_loop(int iterations) override {
    loop_table t;
    for (int l = 0; l < loop_count; ++l) {
      start();
      iterate();
      synchronize();
      const std::uint64_t calls = static_cast<std::uint64_t>(iterations) *
                                  static_cast<std::uint64_t>(calls_per_iteration[static_cast<std::size_t>(l)]);
      const double seconds = median_seconds(1, [&] {
        for (std::uint64_t c = 0; c < calls; ++c) run_loop(l);
        synchronize();
      });
      t[static_cast<std::size_t>(l)] = {calls, seconds};
      stop();
    }
    return t;
  }

 private:
  void run_loop(int l) {
    switch (l) {
      case 0: solver_->save_soln(kernels_); break;
      case 1: solver_->adt_calc(kernels_); break;
      case 2: solver_->res_calc(kernels_); break;
      case 3: solver_->bres_calc(kernels_); break;
      default: solver_->update(kernels_); break;
    }
  }

  pl::Runtime& rt_;
  const airfoil::mesh& mesh_;
  const airfoil::flow& flow_;
  Kernels kernels_;
  pl::conflicts conflicts_;
  bool tuned_;
  bool renumber_;
  std::optional<airfoil::solver> solver_;
};

class hand_runner final : public runner {
 public:
  hand_runner(const airfoil::mesh& m, const airfoil::flow& c, parloop_bench::airfoil_hand_options o)
      : runner(variant_name(o)),
        mesh_(m),
        options_(o),
        consts_{c.gam, c.gm1, c.cfl, c.eps},
        qinf_{c.qinf[0], c.qinf[1], c.qinf[2], c.qinf[3]} {}

  bool hand_written() const override { return true; }
  void start() override {
    hand_.reset();
    const int counts[4] = {mesh_.nnode, mesh_.ncell, mesh_.nedge, mesh_.nbedge};
    hand_.emplace(counts, mesh_.x.data(), mesh_.cell.data(), mesh_.edge.data(), mesh_.ecell.data(), mesh_.bedge.data(),
                  mesh_.becell.data(), mesh_.bound.data(), consts_.data(), qinf_.data(), options_);
    timed_iterations_ = 0;
  }
  void iterate() override {
    hand_->iterate();
    ++timed_iterations_;
  }
  void synchronize() override { hand_->synchronize(); }
  double rms() override { return hand_->rms(); }
  void stop() override { hand_.reset(); }
  // Event pairs around each loop of `iterations` iterations, after an untimed one.
  loop_table per_loop(int iterations) override {
    start();
    iterate();
    synchronize();
    hand_->time_kernels(true);
    timed_iterations_ = 0;
    for (int i = 0; i < iterations; ++i) iterate();
    synchronize();
    const auto seconds = hand_->kernel_seconds();
    loop_table t;
    for (int i = 0; i < loop_count; ++i) {
      if (seconds.at(static_cast<std::size_t>(i)).first != loop_names[static_cast<std::size_t>(i)]) {
        throw std::runtime_error("airfoil_hand's loop " + std::to_string(i) + " is " +
                                 seconds[static_cast<std::size_t>(i)].first + ", not " +
                                 loop_names[static_cast<std::size_t>(i)]);
      }
      t[static_cast<std::size_t>(i)] = {
          timed_iterations_ * static_cast<std::uint64_t>(calls_per_iteration[static_cast<std::size_t>(i)]),
          seconds[static_cast<std::size_t>(i)].second};
    }
    hand_->time_kernels(false);
    stop();
    return t;
  }

 private:
  const airfoil::mesh& mesh_;
  parloop_bench::airfoil_hand_options options_;
  std::array<double, 4> consts_, qinf_;
  std::optional<parloop_bench::airfoil_hand> hand_;
  std::uint64_t timed_iterations_ = 0;
};

// Each its own kernel objects, so that its compiles and statistics are its own; each on the
// runtime of its layout (`runtimes`, indexed by pl::dat_layout).
std::vector<std::unique_ptr<runner>> make_parloop_runners(std::array<pl::Runtime, 2>& runtimes, const airfoil::mesh& m,
                                                          const airfoil::flow& c, bool renumber) {
  std::vector<std::unique_ptr<runner>> out;
  for (const parloop_variant& v : parloop_variants) {
    pl::Runtime& rt = runtimes[static_cast<std::size_t>(v.layout)];
    if (v.kernels == kernel_kind::dsl) {
      using kernels = decltype(airfoil::dsl_kernels(c));
      out.push_back(std::make_unique<parloop_runner<kernels>>(variant_name(v), rt, m, c, airfoil::dsl_kernels(c),
                                                              v.conflicts, v.tuned, renumber));
    } else {
      using kernels = decltype(airfoil::c_kernels(c));
      out.push_back(std::make_unique<parloop_runner<kernels>>(variant_name(v), rt, m, c, airfoil::c_kernels(c),
                                                              v.conflicts, v.tuned, renumber));
    }
  }
  return out;
}

// Untimed: compiles parloop's kernels (first loops of each) and brings every code path in.
void warm_up(runner& r) {
  r.start();
  for (int i = 0; i < warm_up_iterations; ++i) r.iterate();
  r.synchronize();
  (void)r.rms();
  r.stop();
}

// A new solver and its untimed first iteration (see the top of the file), waited for.
void start_primed(runner& r) {
  r.start();
  r.iterate();
  r.synchronize();
}

struct timed_run {
  double seconds;
  double rms;  // after the N + 1 iterations
};

timed_run time_iterations(runner& r, int iterations) {
  start_primed(r);
  const double seconds = median_seconds(1, [&] {
    for (int i = 0; i < iterations; ++i) r.iterate();
    r.synchronize();
  });
  const double rms = r.rms();
  r.stop();
  return {seconds, rms};
}

// ---- The memory floor ----

// How many different entries of [0, count) `values` holds.
std::size_t distinct(const std::vector<pl::index_t>& values, int count) {
  std::vector<bool> seen(static_cast<std::size_t>(count));
  std::size_t n = 0;
  for (const pl::index_t v : values) {
    if (v < 0 || v >= count) throw std::runtime_error("mesh map entry " + std::to_string(v) + " is out of range");
    if (!seen[static_cast<std::size_t>(v)]) {
      seen[static_cast<std::size_t>(v)] = true;
      ++n;
    }
  }
  return n;
}

// The bytes each loop must move at least per call: every array it touches read once (what it
// reads) and written once (what it writes), each element of a dat reached through a map counted
// once however many map entries reach it, the maps read once, nothing counted for caches
// missing or atomics. Doubles are 8 bytes, map entries sizeof(index_t) = 4; q, qold and res
// hold 4 doubles (32 bytes) a cell, x 2 (16 bytes) a node, adt 1 a cell; X(map) below is the
// number of different targets `map` reaches:
//   save_soln  q read, qold written:                       2 * 32 * ncell
//   adt_calc   pcell 16 * ncell, x 16 * X(pcell), q 32 * ncell, adt written 8 * ncell
//   res_calc   pedge and pecell 16 * nedge, x 16 * X(pedge),
//              q 32, adt 8 and res read and written 64, each times X(pecell)
//   bres_calc  pbedge 8, pbecell 4 and bound 4 per boundary edge, x 16 * X(pbedge),
//              q 32, adt 8 and res read and written 64, each times X(pbecell)
//   update     qold read 32, q written 32, res read and written (to 0) 64, adt read 8: 136 * ncell
// An iteration is save_soln + 2 * (adt_calc + res_calc + bres_calc + update). This is DRAM
// traffic only if nothing stays in the L2 between loops (50 MB on an H200, against q's 23 MB
// at 720000 cells): a floor for an implementation that keeps each loop's arrays in memory, not
// a physical bound.
std::array<double, loop_count> floor_bytes_per_call(const airfoil::mesh& m) {
  const double idx = sizeof(pl::index_t), ncell = m.ncell, nedge = m.nedge, nbedge = m.nbedge;
  const double x_cells = static_cast<double>(distinct(m.cell, m.nnode));
  const double x_edges = static_cast<double>(distinct(m.edge, m.nnode));
  const double x_bedges = static_cast<double>(distinct(m.bedge, m.nnode));
  const double edge_cells = static_cast<double>(distinct(m.ecell, m.ncell));
  const double bedge_cells = static_cast<double>(distinct(m.becell, m.ncell));
  return {
      2 * 32 * ncell,
      4 * idx * ncell + 16 * x_cells + 32 * ncell + 8 * ncell,
      2 * 2 * idx * nedge + 16 * x_edges + (32 + 8 + 64) * edge_cells,
      (2 * idx + idx + 4) * nbedge + 16 * x_bedges + (32 + 8 + 64) * bedge_cells,
      (32 + 32 + 64 + 8) * ncell,
  };
}

double per_iteration(const std::array<double, loop_count>& per_call) {
  double sum = 0.0;
  for (int i = 0; i < loop_count; ++i)
    sum += calls_per_iteration[static_cast<std::size_t>(i)] * per_call[static_cast<std::size_t>(i)];
  return sum;
}

// ---- The parent ----

struct options {
  long long size = 720000;
  bool o_grid = false;
  std::optional<std::string> mesh_file;
  bool renumber = false;
  int iterations = 1000;
  std::optional<std::string> csv;
  bool per_loop = true;
};

constexpr const char* usage =
    "usage: bench_airfoil [--size CELLS] [--grid c|o] [--mesh FILE] [--renumber] [--iterations N] [--csv FILE]\n"
    "                     [--no-per-loop]\n"
    "  --size CELLS     cells of the generated NACA0012 mesh (default 720000, OP2's size)\n"
    "  --grid c|o       the generated mesh: a C-mesh as OP2's (default) or an O-grid\n"
    "  --mesh FILE      a mesh in OP2's layout instead of a generated one\n"
    "  --renumber       parloop's loops on the mesh renumbered for locality (pl::renumber); the hand-written\n"
    "                   solver runs the mesh's own numbering\n"
    "  --iterations N   timed iterations per repetition (default 1000)\n"
    "  --csv FILE       writes variant,loop,seconds_per_call,calls,gb_per_s (see plot_airfoil.py)\n"
    "  --no-per-loop    the whole-iteration table only\n";

options parse(int argc, char** argv) {
  options o;
  bool makes_mesh = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a == "--no-per-loop") {
      o.per_loop = false;
      continue;
    }
    if (a == "--renumber") {
      o.renumber = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + ": expected a value after it\n" + usage);
    const char* v = argv[++i];
    makes_mesh = makes_mesh || a == "--size" || a == "--grid";
    if (a == "--size")
      o.size = airfoil::whole_number(a, v, 72, 200'000'000);
    else if (a == "--iterations")
      o.iterations = static_cast<int>(airfoil::whole_number(a, v, 1, 100'000'000));
    else if (a == "--csv")
      o.csv = v;
    else if (a == "--mesh")
      o.mesh_file = v;
    else if (a == "--grid" && (std::string_view(v) == "c" || std::string_view(v) == "o"))
      o.o_grid = std::string_view(v) == "o";
    else if (a == "--grid")
      throw std::invalid_argument("--grid " + std::string(v) + ": expected c or o");
    else
      throw std::invalid_argument("unknown option " + std::string(a) + "\n" + usage);
  }
  if (o.mesh_file && makes_mesh)
    throw std::invalid_argument(std::string("--mesh reads a mesh and --size and --grid make one: give either\n") +
                                usage);
  return o;
}

struct csv_row {
  std::string variant, loop;
  double seconds_per_call;
  std::uint64_t calls;
  std::optional<double> gb_per_s;
};

// Through a temporary renamed into place: the file is whole or untouched.
void write_csv(const std::string& path, const std::vector<csv_row>& rows) {
  const std::string temporary = path + ".part";
  std::FILE* f = std::fopen(temporary.c_str(), "w");
  if (f == nullptr)
    throw std::runtime_error("--csv " + path + ": cannot write " + temporary + " (" + std::strerror(errno) + ")");
  std::fputs("variant,loop,seconds_per_call,calls,gb_per_s\n", f);
  for (const csv_row& r : rows) {
    std::fprintf(f, "%s,%s,%.9g,%llu,", r.variant.c_str(), r.loop.c_str(), r.seconds_per_call,
                 static_cast<unsigned long long>(r.calls));
    if (r.gb_per_s) std::fprintf(f, "%.6g", *r.gb_per_s);
    std::fputc('\n', f);
  }
  const bool written = std::ferror(f) == 0;
  const bool closed = std::fclose(f) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("--csv " + path + ": writing it failed (disk full?)");
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("--csv " + path + ": cannot move it into place (" + why + ")");
  }
}

int run_parent(const options& o) {
  parloop_bench::check_csv_folder(o.csv);
  const airfoil::mesh m = o.mesh_file ? airfoil::read_mesh(*o.mesh_file)
                          : o.o_grid  ? airfoil::make_o_grid(o.size)
                                      : airfoil::make_naca0012(o.size);
  const airfoil::flow c;
  const int n = o.iterations;
  const std::string which = o.mesh_file ? "the mesh " + *o.mesh_file : o.o_grid ? "NACA0012 O-grid" : "NACA0012 C-mesh";
  std::printf(
      "Airfoil, parloop on CUDA against hand-written CUDA: %s of %d nodes, %d cells, %d edges, %d boundary edges%s;"
      "\n%d timed iterations per repetition (after one untimed), median of %d repetitions, the variants alternating\n",
      which.c_str(), m.nnode, m.ncell, m.nedge, m.nbedge,
      o.renumber ? " (parloop's loops renumbered for locality, the hand-written in the mesh's numbering)" : "", n,
      repetitions);
  std::fflush(stdout);
  bool ok = true;

  // A runtime's layout is one of its settings when it opens.
  const auto open_with_layout = [](pl::dat_layout layout) {
    pl::settings s = pl::settings::from_environment();
    s.backend = pl::backend_kind::cuda;
    s.dat_layout = layout;
    return pl::Runtime::open(s);
  };
  std::array<pl::Runtime, 2> runtimes{open_with_layout(pl::dat_layout::aos), open_with_layout(pl::dat_layout::soa)};
  std::printf("device: %s\n", runtimes[0].device_name().c_str());
  const double bandwidth = parloop_bench::copy_bandwidth_bytes_per_s(copy_bytes);
  const std::array<double, loop_count> floor_call = floor_bytes_per_call(m);
  const double floor_iteration = per_iteration(floor_call);
  const double floor_seconds = floor_iteration / bandwidth;
  std::printf("device-to-device copy of %zu MiB: %.1f GB/s (read + written)\n", copy_bytes >> 20, bandwidth / 1e9);
  std::printf("memory floor: %.1f MB per iteration, %.3f ms per iteration, %.4f s per 1000 iterations\n\n",
              floor_iteration / 1e6, floor_seconds * 1e3, floor_seconds * 1000);
  std::fflush(stdout);

  std::vector<std::unique_ptr<runner>> runners = make_parloop_runners(runtimes, m, c, o.renumber);
  for (const parloop_bench::airfoil_hand_options& h : hand_variants)
    runners.push_back(std::make_unique<hand_runner>(m, c, h));
  const std::size_t count = runners.size();

  for (const std::unique_ptr<runner>& r : runners) warm_up(*r);
  std::vector<std::vector<double>> seconds(count), rms(count);
  for (int rep = 0; rep < repetitions; ++rep) {
    // Each repetition starts one variant later, so that no variant is always first.
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t i = (j + static_cast<std::size_t>(rep)) % count;
      const timed_run t = time_iterations(*runners[i], n);
      seconds[i].push_back(t.seconds);
      rms[i].push_back(t.rms);
    }
  }

  std::vector<std::optional<loop_table>> loops(count);
  if (o.per_loop) {
    for (std::size_t i = 0; i < count; ++i) loops[i] = runners[i]->per_loop(n);
  }

  // Correctness: against the first parloop variant's first repetition.
  const double reference = rms[0][0];
  bool rms_ok = true;
  for (std::size_t i = 0; i < count; ++i) {
    for (int rep = 0; rep < repetitions; ++rep) {
      const double v = rms[i][static_cast<std::size_t>(rep)];
      if (!parloop_bench::agrees(v, reference, rms_tolerance)) {
        std::printf("WRONG: %s, repetition %d: rms %.17g against %s's %.17g (relative difference %.2e > %.0e)\n",
                    runners[i]->name().c_str(), rep + 1, v, runners[0]->name().c_str(), reference,
                    std::fabs(v - reference) / std::fabs(reference), rms_tolerance);
        rms_ok = false;
      }
    }
  }
  std::vector<double> t(count);
  double best_hand = 0.0, best_parloop = 0.0;
  std::size_t best_hand_i = 0, best_parloop_i = 0;
  bool any_hand = false, any_parloop = false;
  for (std::size_t i = 0; i < count; ++i) {
    t[i] = median(seconds[i]);
    bool& any = runners[i]->hand_written() ? any_hand : any_parloop;
    double& best = runners[i]->hand_written() ? best_hand : best_parloop;
    std::size_t& best_i = runners[i]->hand_written() ? best_hand_i : best_parloop_i;
    if (!any || t[i] < best) {
      any = true;
      best = t[i];
      best_i = i;
    }
  }

  std::printf("whole iterations (rms after %d iterations: %.10e; every variant within %.0e of it: %s)\n", n + 1,
              reference, rms_tolerance, rms_ok ? "yes" : "NO");
  std::printf("  %-22s %12s %10s %14s %10s\n", "variant", ("s / " + std::to_string(n) + " it").c_str(), "ms / it",
              "/ best hand", "/ floor");
  for (std::size_t i = 0; i < count; ++i) {
    std::printf("  %-22s %12.4f %10.4f %14.3f %10.2f\n", runners[i]->name().c_str(), t[i], 1e3 * t[i] / n,
                t[i] / best_hand, t[i] / (n * floor_seconds));
  }
  std::printf("  %-22s %12.4f %10.4f %14.3f %10.2f\n", "floor", n * floor_seconds, 1e3 * floor_seconds,
              n * floor_seconds / best_hand, 1.0);
  std::printf("\nbest parloop (%s) / best hand-written (%s): %.3f  (goal <= 1.05)\n",
              runners[best_parloop_i]->name().c_str(), runners[best_hand_i]->name().c_str(), best_parloop / best_hand);
  // The goal is for meshes of OP2's size.
  std::printf("best parloop, 1000 iterations: %.4f s%s%s\n", best_parloop / n * 1000,
              n == 1000 ? "" : " (scaled from its time per iteration)", m.ncell == 720000 ? "  (goal <= 0.29 s)" : "");

  // GB/s at the floor's bytes: what each loop must move, the same for every variant.
  const auto gb_per_s = [&](int l, const loop_counts& lc) -> std::optional<double> {
    if (lc.calls == 0 || lc.seconds <= 0) return std::nullopt;
    return floor_call[static_cast<std::size_t>(l)] * static_cast<double>(lc.calls) / lc.seconds / 1e9;
  };

  if (o.per_loop) {
    std::printf(
        "\nper loop, microseconds per call over %d iterations (parloop: each loop alone, its calls back to back "
        "and one wait;\nhand-written: cudaEvent pairs on the device, a coloured loop one pair around its "
        "launches; floor: its bytes at the copy bandwidth)\n",
        n);
    std::printf("  %-22s", "variant");
    for (const char* name : loop_names) std::printf(" %11s", name);
    std::printf("\n");
    for (std::size_t i = 0; i < count; ++i) {
      std::printf("  %-22s", runners[i]->name().c_str());
      for (int l = 0; l < loop_count; ++l) {
        const loop_counts* lc = loops[i] ? &(*loops[i])[static_cast<std::size_t>(l)] : nullptr;
        if (lc != nullptr && lc->calls > 0)
          std::printf(" %11.2f", 1e6 * lc->seconds / static_cast<double>(lc->calls));
        else
          std::printf(" %11s", "-");
      }
      std::printf("\n");
    }
    std::printf("  %-22s", "floor");
    for (int l = 0; l < loop_count; ++l)
      std::printf(" %11.2f", 1e6 * floor_call[static_cast<std::size_t>(l)] / bandwidth);
    std::printf("\n\nper loop, GB/s at the floor's bytes (each array once, each element reached through a map once)\n");
    std::printf("  %-22s", "floor MB per call");
    for (int l = 0; l < loop_count; ++l) std::printf(" %11.2f", floor_call[static_cast<std::size_t>(l)] / 1e6);
    std::printf("\n");
    for (std::size_t i = 0; i < count; ++i) {
      std::printf("  %-22s", runners[i]->name().c_str());
      for (int l = 0; l < loop_count; ++l) {
        const std::optional<double> g = loops[i] ? gb_per_s(l, (*loops[i])[static_cast<std::size_t>(l)]) : std::nullopt;
        if (g)
          std::printf(" %11.1f", *g);
        else
          std::printf(" %11s", "-");
      }
      std::printf("\n");
    }
  }

  // One row per variant and loop: seconds per call, calls in the N iterations, GB/s at the floor's
  // bytes; one per variant with loop "total": seconds per iteration, N, GB/s at an iteration's
  // declared bytes; variant "floor": the memory floor's seconds, gb_per_s the copy bandwidth.
  if (o.csv) {
    std::vector<csv_row> rows;
    const auto calls_of = [&](int l) {
      return static_cast<std::uint64_t>(n) * calls_per_iteration[static_cast<std::size_t>(l)];
    };
    for (std::size_t i = 0; i < count; ++i) {
      const double per_it = t[i] / n;
      rows.push_back({runners[i]->name(), "total", per_it, static_cast<std::uint64_t>(n),
                      std::optional<double>(floor_iteration / per_it / 1e9)});
      if (!loops[i]) continue;
      for (int l = 0; l < loop_count; ++l) {
        const loop_counts& lc = (*loops[i])[static_cast<std::size_t>(l)];
        if (lc.calls == 0) continue;
        rows.push_back({runners[i]->name(), loop_names[static_cast<std::size_t>(l)],
                        lc.seconds / static_cast<double>(lc.calls), lc.calls, gb_per_s(l, lc)});
      }
    }
    rows.push_back({"floor", "total", floor_seconds, static_cast<std::uint64_t>(n), bandwidth / 1e9});
    for (int l = 0; l < loop_count; ++l) {
      rows.push_back({"floor", loop_names[static_cast<std::size_t>(l)],
                      floor_call[static_cast<std::size_t>(l)] / bandwidth, calls_of(l), bandwidth / 1e9});
    }
    write_csv(*o.csv, rows);
    std::printf("\nwrote %s\n", o.csv->c_str());
  }
  return ok && rms_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    if (const pl::backend_status cuda = pl::backends().front(); !cuda.available) {
      std::fprintf(stderr, "bench_airfoil: CUDA is not available here: %s\n", cuda.reason.c_str());
      return 77;
    }
    return run_parent(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_airfoil: %s\n", e.what());
    return 1;
  }
}
