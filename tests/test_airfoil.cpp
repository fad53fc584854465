// SPDX-License-Identifier: MIT
// The Airfoil example's pieces: the generated mesh (OP2's counts, every cell closed by its
// faces, every normal pointing from an edge's first cell into its second), its file layout
// written and read back, the errors of a bad file, and the solver on the device under test
// (DSL kernels and OP2's C kernels; atomics, colours and OP2's two-level plan) against the host
// backend.
#include <catch2/catch.hpp>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../examples/airfoil/kernels_c.hpp"
#include "../examples/airfoil/kernels_dsl.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "../examples/airfoil/o_grid.hpp"
#include "../examples/airfoil/solver.hpp"
#include "device_under_test.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_airfoil {

namespace pl = parloop;

namespace {

struct temporary_directory {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("parloop_test_airfoil_" + std::to_string(::getpid()));
  temporary_directory() { std::filesystem::create_directories(path); }
  ~temporary_directory() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name, const std::string& text = {}) const {
    const auto p = (path / name).string();
    if (!text.empty()) std::ofstream(p) << text;
    return p;
  }
};

// Checks `got` against `want` field by field, so that a failure says which.
void check_same_mesh(const airfoil::mesh& got, const airfoil::mesh& want) {
  CHECK(got.nnode == want.nnode);
  CHECK(got.ncell == want.ncell);
  CHECK(got.nedge == want.nedge);
  CHECK(got.nbedge == want.nbedge);
  CHECK(got.x == want.x);
  CHECK(got.cell == want.cell);
  CHECK(got.edge == want.edge);
  CHECK(got.ecell == want.ecell);
  CHECK(got.bedge == want.bedge);
  CHECK(got.becell == want.becell);
  CHECK(got.bound == want.bound);
}

// Checks that read_mesh refuses a file of `text` with a message naming the file and saying `says`.
void refused(const temporary_directory& dir, const std::string& text, const std::string& says) {
  INFO(text);
  const std::string path = dir.file("bad.dat", text);
  CHECK_THROWS_WITH(airfoil::read_mesh(path), Catch::Contains(path) && Catch::Contains(says));
}

// Reads `text` with read_mesh through a FIFO in `dir`, as `--mesh /dev/stdin` or `<(zcat grid.dat.gz)`
// read a pipe: a file with no size. A thread writes it (the FIFO's opening waits for both ends).
airfoil::mesh read_through_fifo(const temporary_directory& dir, const std::string& text) {
  const std::string path = dir.file("pipe.dat");
  std::filesystem::remove(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const std::jthread writer([&] {
    // A read refused half-way closes the FIFO: the rest of the write then fails here, rather
    // than raising SIGPIPE, which would end the test program.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::ofstream(path) << text;
  });
  return airfoil::read_mesh(path);
}

double coordinate(const airfoil::mesh& m, pl::index_t node, int k) {
  return m.x[2 * std::size_t(node) + std::size_t(k)];
}

// Adds a face's normal (dy, -dx), (dx, dy) = first node - second, to one cell and takes it from another.
void add_normal(const airfoil::mesh& m, pl::index_t a, pl::index_t b, std::vector<double>& sum, pl::index_t to,
                double sign) {
  sum[2 * std::size_t(to)] += sign * (coordinate(m, a, 1) - coordinate(m, b, 1));
  sum[2 * std::size_t(to) + 1] -= sign * (coordinate(m, a, 0) - coordinate(m, b, 0));
}

}  // namespace

TEST_CASE("the generated mesh has OP2's counts", "[airfoil]") {
  const airfoil::mesh m = airfoil::make_naca0012(720000);
  CHECK(m.nnode == 721801);
  CHECK(m.ncell == 720000);
  CHECK(m.nedge == 1438600);
  CHECK(m.nbedge == 2800);
  CHECK(m.x.size() == 2 * 721801u);
  CHECK(m.cell.size() == 4 * 720000u);
  CHECK(m.edge.size() == 2 * 1438600u);
  CHECK(m.becell.size() == 2800u);
  CHECK(std::count(m.bound.begin(), m.bound.end(), 1) == 400);
}

TEST_CASE("the generated O-grid has M rings of 2 M cells, its wall and far field 2 M faces each", "[airfoil]") {
  const airfoil::mesh m = airfoil::make_o_grid(720000);
  CHECK(m.ncell == 720000);
  CHECK(m.nnode == 1200 * 601);
  CHECK(m.nedge == 1200 * 600 + 1200 * 599);
  CHECK(m.nbedge == 2400);
  CHECK(m.edge.size() == 2 * std::size_t(m.nedge));
  CHECK(std::count(m.bound.begin(), m.bound.end(), 1) == 1200);
  CHECK_THROWS_WITH(airfoil::make_o_grid(71), Catch::Contains("72 to 200000000 cells"));
}

TEST_CASE("every generated cell is closed by its faces, each normal pointing out of it", "[airfoil]") {
  const long long size = GENERATE(72, 2000, 30000);
  const bool o_grid = GENERATE(false, true);
  const airfoil::mesh m = o_grid ? airfoil::make_o_grid(size) : airfoil::make_naca0012(size);
  // Summed over a cell's faces, outward normals cancel (to rounding); one normal pointing the
  // wrong way, or a face missing, leaves twice or once its length.
  std::vector<double> sum(2 * std::size_t(m.ncell), 0.0);
  for (int e = 0; e < m.nedge; ++e) {
    const auto i = 2 * std::size_t(e);
    add_normal(m, m.edge[i], m.edge[i + 1], sum, m.ecell[i], 1.0);
    add_normal(m, m.edge[i], m.edge[i + 1], sum, m.ecell[i + 1], -1.0);
  }
  for (int e = 0; e < m.nbedge; ++e) {
    add_normal(m, m.bedge[2 * std::size_t(e)], m.bedge[2 * std::size_t(e) + 1], sum, m.becell[std::size_t(e)], 1.0);
  }
  double worst = 0.0, smallest_area = 1.0;
  for (int c = 0; c < m.ncell; ++c) {
    worst = std::max({worst, std::fabs(sum[2 * std::size_t(c)]), std::fabs(sum[2 * std::size_t(c) + 1])});
    double area = 0.0;
    for (int k = 0; k < 4; ++k) {
      const pl::index_t a = m.cell[4 * std::size_t(c) + std::size_t(k)];
      const pl::index_t b = m.cell[4 * std::size_t(c) + std::size_t((k + 1) % 4)];
      area += 0.5 * (coordinate(m, a, 0) * coordinate(m, b, 1) - coordinate(m, b, 0) * coordinate(m, a, 1));
    }
    smallest_area = std::min(smallest_area, area);
  }
  INFO("size " << size << (o_grid ? ", O-grid" : ", C-mesh"));
  CHECK(worst < 1e-12);
  CHECK(smallest_area > 0.0);
  // The wall is the aerofoil: its nodes lie within the chord.
  for (int e = 0; e < m.nbedge; ++e) {
    if (m.bound[std::size_t(e)] != 1) continue;
    const double x = coordinate(m, m.bedge[2 * std::size_t(e)], 0);
    CHECK((x > -1e-12 && x < 1.0 + 1e-12));
  }
}

TEST_CASE("a mesh written in OP2's layout reads back the same", "[airfoil]") {
  const temporary_directory dir;
  const airfoil::mesh m = airfoil::make_naca0012(2000);
  const std::string path = dir.file("grid.dat");
  airfoil::write_mesh(m, path);
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  check_same_mesh(airfoil::read_mesh(path), m);
}

TEST_CASE("a bad mesh file is refused, naming what is wrong", "[airfoil]") {
  const temporary_directory dir;
  // One cell of four nodes, one edge, one boundary edge.
  const std::string nodes = "0 0\n1 0\n1 1\n0 1\n";
  refused(dir, "4 1 1\n", "the first line must be four counts");
  refused(dir, "0 1 0 0\n", "nodes and cells must be at least 1");
  refused(dir, "4 1 -1 0\n" + nodes, "edges at least 0");
  refused(dir, "400000 1 0 0\n" + nodes, "more than its");
  refused(dir, "4 1 0 1\n0 0\n1 0\n1 x\n0 1\n0 1 2 3\n0 1 0 1\n",
          "node 2 (from 0) of 4: cannot read its value 2 of 2: \"x\" is not a number");
  refused(dir, "4 1 1 1\n" + nodes + "0 1 2 3\n0 1 0 x\n0 1 0 1\n",
          "edge 0 (from 0) of 1: cannot read its value 4 of 4: \"x\" is not a whole number");
  refused(dir, "4 1 0 1\n" + nodes + "0 1 2 3\n0 1 0 3\n", "bound 3 is neither 1 (wall) nor 2 (far field)");
  refused(dir, "4 1 0 1\n" + nodes + "0 1 2 3\n0 1 0 1\n7\n", "\"7\" after the last boundary edge");
  REQUIRE_THROWS_WITH(airfoil::read_mesh(dir.file("missing.dat")), Catch::Contains("cannot open it"));
  REQUIRE_THROWS_WITH(airfoil::read_mesh(dir.path.string()), Catch::Contains("it is a folder"));
  refused(dir, "4 1 0 3000000000\n", "nbedge: 3000000000 is larger than an int");

  // A node index out of range is the map's to find, as for any map.
  const airfoil::mesh m = airfoil::read_mesh(dir.file("index.dat", "4 1 0 1\n" + nodes + "0 1 2 4\n0 1 0 1\n"));
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  REQUIRE_THROWS_WITH(airfoil::solver(rt, m, airfoil::flow{}), Catch::Contains("pcell") && Catch::Contains("4"));
}

TEST_CASE("a pipe too short for its counts is refused at its end, not in an allocation", "[airfoil]") {
  const temporary_directory dir;
  const auto peak_kib = [] {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
  };
  // 200 million coordinates announced, three sent: 1.6 GB was allocated and zeroed for them
  // before the end of the pipe was found, and the largest counts ended in std::bad_alloc.
  const long before = peak_kib();
  CHECK_THROWS_WITH(
      read_through_fifo(dir, "100000000 1 0 0\n0 0\n1\n"),
      Catch::Contains("pipe.dat") &&
          Catch::Contains("node 1 (from 0) of 100000000: cannot read its value 2 of 2: the file ends there"));
  CHECK(peak_kib() - before < 256 * 1024);
  CHECK_THROWS_AS(read_through_fifo(dir, "2147483647 2147483647 2147483647 2147483647\n0.5 0.5\n"), pl::argument_error);
  CHECK_THROWS_WITH(
      read_through_fifo(dir, "2147483647 2147483647 2147483647 2147483647\n0.5 0.5\n"),
      Catch::Contains("node 1 (from 0) of 2147483647: cannot read its value 1 of 2: the file ends there"));
  // Each section names the entry and value the pipe ended at.
  const std::string nodes = "0 0\n1 0\n1 1\n0 1\n";
  CHECK_THROWS_WITH(read_through_fifo(dir, "4 3 0 0\n" + nodes + "0 1 2 3\n"),
                    Catch::Contains("cell 1 (from 0) of 3: cannot read its value 1 of 4: the file ends there"));
  CHECK_THROWS_WITH(read_through_fifo(dir, "4 1 2 0\n" + nodes + "0 1 2 3\n0 1 0 0\n1 2 0\n"),
                    Catch::Contains("edge 1 (from 0) of 2: cannot read its value 4 of 4: the file ends there"));
  CHECK_THROWS_WITH(
      read_through_fifo(dir, "4 1 0 2\n" + nodes + "0 1 2 3\n0 1 0 1\n1 2\n"),
      Catch::Contains("boundary edge 1 (from 0) of 2: cannot read its value 3 of 4: the file ends there"));
}

TEST_CASE("a mesh read through a pipe is the mesh read from its file", "[airfoil]") {
  const temporary_directory dir;
  const std::string path = dir.file("grid.dat");
  airfoil::write_mesh(airfoil::make_naca0012(2000), path);
  const airfoil::mesh want = airfoil::read_mesh(path);
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  check_same_mesh(read_through_fifo(dir, text.str()), want);
}

TEST_CASE("a mesh's counts outside an int are refused as written", "[airfoil]") {
  const temporary_directory dir;
  // -3000000000 was read as 1294967296, below INT_MIN wrapped round.
  refused(dir, "4 1 0 -3000000000\n", "nbedge: -3000000000 is smaller than an int");
  refused(dir, "-3000000000 1 0 0\n", "nnode: -3000000000 is smaller than an int");
  refused(dir, "4 2147483648 0 0\n", "ncell: 2147483648 is larger than an int");
  refused(dir, "4 1 99999999999999999999 0\n", "nedge: 99999999999999999999 is larger than an int");
  refused(dir, "4 1 -99999999999999999999 0\n", "nedge: -99999999999999999999 is smaller than an int");
  refused(dir, "4 1 0 1.5\n", "nbedge: \"1.5\" is not a whole number");
}

TEST_CASE("a value with junk glued to it is refused with its own text and place", "[airfoil]") {
  const temporary_directory dir;
  const std::string nodes = "0 0\n1 0\n1 1\n0 1\n";
  // Streams read 0.5 of 0.5x and blamed the x on the next value.
  refused(dir, "4 1 0 0\n0 0.5x\n1 0\n1 1\n0 1\n0 1 2 3\n",
          "node 0 (from 0) of 4: cannot read its value 2 of 2: \"0.5x\" is not a number");
  refused(dir, "4x 1 0 0\n", "nnode: \"4x\" is not a whole number");
  refused(dir, "4 1 0 0\n" + nodes + "0 1 12abc 3\n",
          "cell 0 (from 0) of 1: cannot read its value 3 of 4: \"12abc\" is not a whole number");
  refused(dir, "4 1 1 0\n" + nodes + "0 1 2 3\n0 1 0 1e3\n",
          "edge 0 (from 0) of 1: cannot read its value 4 of 4: \"1e3\" is not a whole number");
  refused(dir, "4 1 0 1\n" + nodes + "0 1 2 3\n0 1 0 2x\n",
          "boundary edge 0 (from 0) of 1: cannot read its value 4 of 4: \"2x\" is not a whole number");
  refused(dir, "4 1 0 0\n" + nodes + "0 1 2 9999999999\n",
          "cell 0 (from 0) of 1: cannot read its value 4 of 4: 9999999999 is larger than an int");
  refused(dir, "4 1 0 0\n" + nodes + "0 1 2 99999999999x\n",
          "cell 0 (from 0) of 1: cannot read its value 4 of 4: \"99999999999x\" is not a whole number");
  // Bytes a terminal would act on are escaped.
  refused(dir, "4 1 0 0\n" + nodes + "0 1 2 \x1b[2J\n",
          "cell 0 (from 0) of 1: cannot read its value 4 of 4: \"\\x1b[2J\" is not a whole number");
  refused(dir, "4 1 0 0\n0 nan\n1 0\n1 1\n0 1\n0 1 2 3\n",
          "node 0 (from 0) of 4: cannot read its value 2 of 2: \"nan\" is not a finite number");
  refused(dir, "4 1 0 0\n0 1e999\n1 0\n1 1\n0 1\n0 1 2 3\n",
          "node 0 (from 0) of 4: cannot read its value 2 of 2: 1e999 is outside a double's range");
  refused(dir, "4 1 0 0\n0 " + std::string(300, '7') + "\n",
          "node 0 (from 0) of 4: cannot read its value 2 of 2: \"7777");
  refused(dir, "4 1 0 0\n0 " + std::string(300, '7') + "\n", "is longer than any number (256 characters at most)");
  // A sign streams accept is still accepted.
  const airfoil::mesh m = airfoil::read_mesh(dir.file("signs.dat", "4 1 0 0\n+0.5 -0.25\n1 0\n1 1\n0 1\n+0 1 2 3\n"));
  CHECK(m.x == std::vector<double>{0.5, -0.25, 1, 0, 1, 1, 0, 1});
  CHECK(m.cell == std::vector<pl::index_t>{0, 1, 2, 3});
}

TEST_CASE("only a mesh that may be OP2's new_grid.dat is compared with OP2's figure", "[airfoil]") {
  const temporary_directory dir;
  // The generated mesh has new_grid.dat's counts but is not that file, also written and read
  // back (airfoil --write-mesh, then --mesh): its rms was compared with OP2's as if it were.
  const std::string path = dir.file("grid720k.dat");
  airfoil::write_mesh(airfoil::make_naca0012(720000), path);
  airfoil::mesh m = airfoil::read_mesh(path);
  CHECK_FALSE(airfoil::may_be_op2_mesh(m));
  // Another mesh with all four counts may be it.
  m.x[0] += 0.5;
  CHECK(airfoil::may_be_op2_mesh(m));
  // Another count, or another mesh's counts, and it is not.
  m.nbedge = 2801;
  CHECK_FALSE(airfoil::may_be_op2_mesh(m));
  CHECK_FALSE(airfoil::may_be_op2_mesh(airfoil::make_naca0012(2000)));
}

TEST_CASE("Airfoil on the device under test: the host backend's solution", "[airfoil][device]") {
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const airfoil::mesh m = airfoil::make_naca0012(2000);
  const airfoil::flow c;
  const auto run = [&](const pl::Runtime& rt, const auto& kernels) {
    airfoil::solver s(rt, m, c);
    for (int i = 0; i < 20; ++i) s.iterate(kernels);
    const auto q = s.q().host();
    return std::pair{std::vector<double>(q.begin(), q.end()), s.rms()};
  };
  const auto [want, want_rms] = run(host, airfoil::dsl_kernels(c));
  // The host runs lambdas only.
  {
    const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
    airfoil::solver s(rt, m, c);
    CHECK_THROWS_WITH(s.iterate(airfoil::c_kernels(c)), Catch::Contains("needs a device backend"));
  }
  pl::Runtime device = parloop_test::device_runtime();
  for (const auto& [c_kernels, conflicts] :
       {std::pair{false, pl::conflicts::atomics}, std::pair{true, pl::conflicts::atomics},
        std::pair{false, pl::conflicts::colors}, std::pair{true, pl::conflicts::blocks},
        std::pair{false, pl::conflicts::blocks}}) {
    INFO((c_kernels ? "C kernels, " : "DSL kernels, ") << pl::to_string(conflicts) << ", on " << device.device_name());
    device.set_default_conflicts(conflicts);
    const auto [got, got_rms] = c_kernels ? run(device, airfoil::c_kernels(c)) : run(device, airfoil::dsl_kernels(c));
    REQUIRE(got.size() == want.size());
    // Increments through maps add in another order, and devices may fuse multiply-adds. The
    // state is of order 1 (free-stream units; some components are 0): absolute differences.
    double worst = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
    CHECK(worst < 1e-12);
    CHECK(got_rms == Approx(want_rms).epsilon(1e-9));
  }
}

}  // namespace test_airfoil
