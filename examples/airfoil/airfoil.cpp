// SPDX-License-Identifier: MIT
// OP2's Airfoil: a finite-volume solver of the Euler equations around an aerofoil, with a
// local time step and scalar dissipation, on a mesh of quadrilaterals (nodes, cells, edges and
// boundary edges, and the maps between them). Each iteration saves the solution, then twice
// computes the time steps (adt_calc), the fluxes across interior (res_calc) and boundary
// (bres_calc) edges and the update, which sums the squared changes; every 100 iterations it
// prints sqrt(rms / ncell) as OP2 does, so that the history can be compared line by line with
// OP2's on the same mesh.
//
//   airfoil [--mesh FILE | --size CELLS [--grid c|o]] [--iterations N] [--kernels dsl|c] [--autotune]
//           [--digits D] [--write-mesh FILE] [--no-renumber]
//
// The loops run with the mesh renumbered for locality (pl::renumber of the cells: a mesh numbered
// in any order runs about as fast as one numbered structurally); --no-renumber runs them in the
// file's order. The printed rms agrees to 1e-9 either way (sums in another order), and a written
// mesh is the same.
//
// airfoil_mpi is the same program over MPI ranks (mpirun -np N airfoil_mpi ...): rank 0 reads or
// makes the mesh (each rank reads its block of an HDF5 one), every rank runs its share
// (distributed.hpp), ordered for locality within its regions unless --no-renumber, and rank 0
// prints.
#include <parloop/parloop.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "arguments.hpp"
#include "flow.hpp"
#include "kernels_c.hpp"
#include "phases.hpp"
#if PARLOOP_HAVE_HDF5
#include "mesh_hdf5.hpp"
#if PARLOOP_AIRFOIL_MPI
#include <parloop/io/hdf5_mpi.hpp>
#endif
#endif
#include "kernels_dsl.hpp"
#include "mesh.hpp"
#include "naca0012.hpp"
#include "o_grid.hpp"
#include "solver.hpp"
#if PARLOOP_AIRFOIL_MPI
#include <sys/resource.h>

#include "distributed.hpp"
#endif

namespace pl = parloop;

namespace {

struct options {
  std::optional<std::string> mesh_file, write_mesh, checkpoint, restart;
  long long size = 720000;
  bool o_grid = false;
  int iterations = 1000;
  bool c_kernels = false;
  bool autotune = false;
  bool renumber = true;
  bool read_each_step = false;
  bool phases = false;
  int digits = 5;
};

constexpr const char* usage =
    "usage: airfoil [--mesh FILE | --size CELLS [--grid c|o]] [--iterations N] [--kernels dsl|c] [--autotune]\n"
    "               [--digits D] [--write-mesh FILE] [--no-renumber] [--read-each-step] [--phases]\n"
    "               [--checkpoint FILE.h5] [--restart FILE.h5]\n"
    "  --mesh FILE        OP2's new_grid.dat layout, or OP2's new_grid.h5 (a .h5 file); otherwise a NACA0012 mesh of\n"
    "                     about CELLS cells (default 720000)\n"
    "  --grid c|o         the generated mesh: a C-mesh as OP2's (default) or an O-grid\n"
    "  --iterations N     default 1000; the rms is printed every 100 and after the last\n"
    "  --kernels dsl|c    the parloop DSL kernels (default) or OP2's C kernels through pl::kernel_from_source\n"
    "  --autotune         each loop's launch chosen by timing at its first call (kept in the disk cache)\n"
    "  --digits D         digits after the point of the printed rms (default 5, OP2's %10.5e)\n"
    "  --write-mesh FILE  writes the mesh in OP2's layout (.h5: OP2's HDF5 one, with the flow's start): with\n"
    "                     --mesh and --iterations 0, a converter\n"
    "  --no-renumber      loops in the mesh's own order (by default the cells are renumbered for locality, and\n"
    "                     the other sets follow; over MPI ranks, each rank orders its share so)\n"
    "  --read-each-step   reads the rms back after each step, a wait for the device, as an OP2 application\n"
    "                     must (benchmarks/op2_airfoil.sh compares the two so)\n"
    "  --checkpoint FILE  writes the flow's state (p_q) after the last iteration, in the mesh's numbering (HDF5)\n"
    "  --restart FILE     starts from a checkpoint's state: N more iterations end where an uninterrupted run does\n"
    "  --phases           the job's time by phase on stderr: mesh, runtime, declaring, ordering, first step\n"
    "                     (compiling or loading its kernels), loops (benchmarks/airfoil_job.sh); over MPI, the\n"
    "                     largest rank's peak memory once the mesh is distributed\n";

options parse(int argc, char** argv) {
  options o;
  bool makes_mesh = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a == "--autotune") {
      o.autotune = true;
      continue;
    }
    if (a == "--no-renumber") {
      o.renumber = false;
      continue;
    }
    if (a == "--read-each-step") {
      o.read_each_step = true;
      continue;
    }
    if (a == "--phases") {
      o.phases = true;
      continue;
    }
    if (i + 1 >= argc) throw pl::argument_error(fmt::format("{}: expected a value after it\n{}", a, usage));
    const char* v = argv[++i];
    if (a == "--mesh") {
      o.mesh_file = v;
    } else if (a == "--write-mesh") {
      o.write_mesh = v;
    } else if (a == "--checkpoint") {
      o.checkpoint = v;
    } else if (a == "--restart") {
      o.restart = v;
    } else if (a == "--size") {
      o.size = airfoil::whole_number(a, v, 1, 200'000'000);
      makes_mesh = true;
    } else if (a == "--grid") {
      if (std::string_view(v) != "c" && std::string_view(v) != "o") {
        throw pl::argument_error(fmt::format("--grid {}: expected c or o", v));
      }
      o.o_grid = std::string_view(v) == "o";
      makes_mesh = true;
    } else if (a == "--iterations") {
      o.iterations = static_cast<int>(airfoil::whole_number(a, v, 0, 100'000'000));
    } else if (a == "--digits") {
      o.digits = static_cast<int>(airfoil::whole_number(a, v, 1, 17));
    } else if (a == "--kernels") {
      if (std::string_view(v) != "dsl" && std::string_view(v) != "c") {
        throw pl::argument_error(fmt::format("--kernels {}: expected dsl or c", v));
      }
      o.c_kernels = std::string_view(v) == "c";
    } else {
      throw pl::argument_error(fmt::format("unknown option {}\n{}", a, usage));
    }
  }
  if (o.mesh_file && makes_mesh) {
    throw pl::argument_error(fmt::format("--mesh reads a mesh and --size and --grid make one: give either\n{}", usage));
  }
  return o;
}

// Whether this process prints: all of one, rank 0 of several.
bool prints() {
#if PARLOOP_AIRFOIL_MPI
  return pl::mpi::rank_of(MPI_COMM_WORLD) == 0;
#else
  return true;
#endif
}

// The flow's state written to a checkpoint, or read back from one (over MPI ranks, every rank
// takes part: the root writes, each rank reads its own cells' rows).
void write_state(const pl::Dat<double, 4>& q, const std::string& path) {
#if PARLOOP_HAVE_HDF5 && PARLOOP_AIRFOIL_MPI
  pl::hdf5::checkpoint(MPI_COMM_WORLD, path, q);
#elif PARLOOP_HAVE_HDF5
  pl::hdf5::checkpoint(path, q);
#else
  static_cast<void>(q);
  throw pl::argument_error(fmt::format("--checkpoint {}: this airfoil is built without HDF5", path));
#endif
}
void read_state(pl::Dat<double, 4>& q, const std::string& path) {
#if PARLOOP_HAVE_HDF5 && PARLOOP_AIRFOIL_MPI
  pl::hdf5::restart(MPI_COMM_WORLD, path, q);
#elif PARLOOP_HAVE_HDF5
  pl::hdf5::restart(path, q);
#else
  static_cast<void>(q);
  throw pl::argument_error(fmt::format("--restart {}: this airfoil is built without HDF5", path));
#endif
}

// Runs the iterations, printing the rms every 100 and after the last; returns the last.
template <class Kernels>
double run(const pl::Runtime& rt, const airfoil::mesh_handles& h, const airfoil::flow& c, const options& o,
           const Kernels& kernels, airfoil::phases& timed) {
  airfoil::solver s(rt, h, c);
  if (o.restart) read_state(s.q(), *o.restart);
  const auto start = std::chrono::steady_clock::now();
  double last = 0.0;
  for (int iter = 1; iter <= o.iterations; ++iter) {
    s.iterate(kernels, o.read_each_step);
    // Timed by phase, the first step (its kernels compiled or loaded) is waited for alone.
    if (iter == 1 && timed.on()) {
      rt.synchronize();
      timed.end("first_step");
    }
    // Reading the rms waits for the device: only where it is printed.
    if (iter % 100 == 0 || iter == o.iterations) {
      last = s.rms();
      if (prints()) std::printf(" %d  %*.*e\n", iter, o.digits + 5, o.digits, last);
    }
  }
  rt.synchronize();
  timed.end("loops");
  if (o.checkpoint) write_state(s.q(), *o.checkpoint);
  std::fflush(stdout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (prints()) {
    std::fprintf(stderr, "airfoil: %d iterations in %.3f s (%.3f ms each)\n", o.iterations, seconds,
                 o.iterations > 0 ? 1e3 * seconds / o.iterations : 0.0);
  }
  return last;
}

// --mesh and --write-mesh: a .h5 or .hdf5 file in OP2's HDF5 layout, any other in its text one.
bool names_hdf5(const std::string& path) { return path.ends_with(".h5") || path.ends_with(".hdf5"); }
#if !PARLOOP_HAVE_HDF5
[[noreturn]] void no_hdf5(const std::string& path) {
  throw pl::argument_error(
      fmt::format("mesh '{}': this airfoil is built without HDF5 (parloop's hdf5 component)", path));
}
#endif

airfoil::mesh read_mesh_file(const std::string& path) {
  if (!names_hdf5(path)) return airfoil::read_mesh(path);
#if PARLOOP_HAVE_HDF5
  return airfoil::read_mesh_hdf5(path);
#else
  no_hdf5(path);
#endif
}

void write_mesh_file(const airfoil::mesh& m, const airfoil::flow& c, const std::string& path) {
  if (!names_hdf5(path)) return airfoil::write_mesh(m, path);
#if PARLOOP_HAVE_HDF5
  airfoil::write_mesh_hdf5(m, c, path);
#else
  (void)c;
  no_hdf5(path);
#endif
}

int airfoil_main(int argc, char** argv) {
  const options o = parse(argc, argv);
  airfoil::phases timed(o.phases && prints());
  // Over MPI, an HDF5 mesh is read by every rank, each its block (unless converted, which needs it
  // whole); any other only by rank 0, which reads or makes it while the others distribute an
  // empty one.
#if PARLOOP_AIRFOIL_MPI && PARLOOP_HAVE_HDF5
  std::optional<airfoil::mesh_blocks> blocks;
  if (o.mesh_file && names_hdf5(*o.mesh_file) && !o.write_mesh)
    blocks = airfoil::read_blocks(MPI_COMM_WORLD, *o.mesh_file);
  const bool whole = !blocks;
#else
  const bool whole = true;
#endif
  const airfoil::mesh m = !prints() || !whole ? airfoil::mesh{}
                          : o.mesh_file       ? read_mesh_file(*o.mesh_file)
                          : o.o_grid          ? airfoil::make_o_grid(o.size)
                                              : airfoil::make_naca0012(o.size);
  const airfoil::flow c;
  if (o.write_mesh && prints()) write_mesh_file(m, c, *o.write_mesh);
  timed.end("mesh");
  pl::Runtime rt = pl::Runtime::open();
  timed.end("runtime");
  // The solver's loops name no strategy and no conflicts: the runtime's setting tunes them all.
  if (o.autotune) rt.set_autotune(true);
  if (o.c_kernels && rt.kind() == pl::backend_kind::host) {
    throw pl::backend_unavailable(
        "--kernels c: C kernels run on a device backend (PARLOOP_BACKEND=opencl or cuda); the host runs the DSL "
        "kernels");
  }
#if PARLOOP_AIRFOIL_MPI
#if PARLOOP_HAVE_HDF5
  const airfoil::mesh_handles h = blocks ? airfoil::distributed(rt, MPI_COMM_WORLD, *blocks, o.renumber)
                                         : airfoil::distributed(rt, MPI_COMM_WORLD, m, o.renumber);
#else
  const airfoil::mesh_handles h = airfoil::distributed(rt, MPI_COMM_WORLD, m, o.renumber);
#endif
  const std::string ranks = fmt::format(", {} MPI ranks", pl::mpi::size_of(MPI_COMM_WORLD));
  timed.end("declare_and_partition");
  // Whether any rank held more than its share while the mesh was read and partitioned.
  if (o.phases) {
    rusage use{};
    ::getrusage(RUSAGE_SELF, &use);
    long peak_kb = use.ru_maxrss;
    pl::mpi::check(MPI_Reduce(prints() ? MPI_IN_PLACE : &peak_kb, &peak_kb, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD),
                   "MPI_Reduce");
    timed.note("largest_rank_peak_mb", static_cast<double>(peak_kb) / 1024.0);
  }
#else
  const airfoil::mesh_handles h = airfoil::on_runtime(rt, m);
  const std::string ranks;
  timed.end("declare");
  if (o.renumber) pl::renumber(h.cells);
  timed.end("renumber");
#endif
  if (prints()) {
    std::printf("airfoil on %s (%s kernels%s%s%s): %d nodes, %d cells, %d edges, %d boundary edges\n",
                rt.device_name().c_str(), o.c_kernels ? "C" : "DSL", rt.autotunes() ? ", autotuned" : "", ranks.c_str(),
                o.renumber ? ", renumbered" : "", h.nodes.global_size(), h.cells.global_size(), h.edges.global_size(),
                h.bedges.global_size());
  }
  const double rms =
      o.c_kernels ? run(rt, h, c, o, airfoil::c_kernels(c), timed) : run(rt, h, c, o, airfoil::dsl_kernels(c), timed);
  // OP2's figure is compared with only on a mesh that may be its new_grid.dat: on any other it
  // would measure the distance between two meshes, not this program's error.
  if (prints() && o.mesh_file && o.iterations == 1000 && airfoil::may_be_op2_mesh(m)) {
    const double percent = 100.0 * std::fabs(rms - airfoil::op2_rms_1000) / airfoil::op2_rms_1000;
    std::printf("against OP2's rms for its new_grid.dat after 1000 iterations (%.16f): %.2e %% %s\n",
                airfoil::op2_rms_1000, percent,
                percent < 1e-5 ? "(OP2's result)"
                               : "(not OP2's result: this mesh has new_grid.dat's counts, but may not be that file)");
  }
  timed.print();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if PARLOOP_AIRFOIL_MPI
  // An error on any rank ends the job, saying which rank and why: the others may be waiting for it.
  return pl::mpi::run(argc, argv, [&] { return airfoil_main(argc, argv); });
#else
  try {
    return airfoil_main(argc, argv);
  } catch (const std::exception& e) {
    // parloop's errors, and running out of memory for a mesh.
    std::fprintf(stderr, "airfoil: %s\n", e.what());
    return 1;
  }
#endif
}
