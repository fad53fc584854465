// SPDX-License-Identifier: MIT
// The Airfoil example's pieces: the generated mesh (OP2's counts, every cell closed by its
// faces, every normal pointing from an edge's first cell into its second), its file layout
// written and read back, the errors of a bad file, and the solver on the device under test
// (DSL kernels and OP2's C kernels; atomics, colours and OP2's two-level plan) against the host
// backend.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "../examples/airfoil/kernels_c.hpp"
#include "../examples/airfoil/kernels_dsl.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "../examples/airfoil/solver.hpp"
#include "device_under_test.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_airfoil {

namespace pl = parloop;

namespace {

struct temporary_directory {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("parloop_test_airfoil_" + std::to_string(::getpid()));
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

double coordinate(const airfoil::mesh& m, pl::index_t node, int k) { return m.x[2 * std::size_t(node) + std::size_t(k)]; }

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

TEST_CASE("every generated cell is closed by its faces, each normal pointing out of it", "[airfoil]") {
  const long long size = GENERATE(72, 2000, 30000);
  const airfoil::mesh m = airfoil::make_naca0012(size);
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
  INFO("size " << size);
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
  const airfoil::mesh r = airfoil::read_mesh(path);
  CHECK(r.nnode == m.nnode);
  CHECK(r.ncell == m.ncell);
  CHECK(r.nedge == m.nedge);
  CHECK(r.nbedge == m.nbedge);
  CHECK(r.x == m.x);
  CHECK(r.cell == m.cell);
  CHECK(r.edge == m.edge);
  CHECK(r.ecell == m.ecell);
  CHECK(r.bedge == m.bedge);
  CHECK(r.becell == m.becell);
  CHECK(r.bound == m.bound);
}

TEST_CASE("a bad mesh file is refused, naming what is wrong", "[airfoil]") {
  const temporary_directory dir;
  const auto refused = [&](const std::string& text, const std::string& says) {
    INFO(text);
    const std::string path = dir.file("bad.dat", text);
    REQUIRE_THROWS_WITH(airfoil::read_mesh(path), Catch::Contains(path) && Catch::Contains(says));
  };
  // One cell of four nodes, one edge, one boundary edge.
  const std::string nodes = "0 0\n1 0\n1 1\n0 1\n";
  refused("4 1 1\n", "the first line must be four counts");
  refused("0 1 0 0\n", "nodes and cells must be at least 1");
  refused("4 1 -1 0\n" + nodes, "edges at least 0");
  refused("400000 1 0 0\n" + nodes, "more than its");
  refused("4 1 0 1\n0 0\n1 0\n1 x\n0 1\n0 1 2 3\n0 1 0 1\n", "node 2 (from 0) of 4: cannot read its value 2 of 2");
  refused("4 1 1 1\n" + nodes + "0 1 2 3\n0 1 0 x\n0 1 0 1\n", "edge 0 (from 0) of 1: cannot read its two nodes and two cells");
  refused("4 1 0 1\n" + nodes + "0 1 2 3\n0 1 0 3\n", "bound 3 is neither 1 (wall) nor 2 (far field)");
  refused("4 1 0 1\n" + nodes + "0 1 2 3\n0 1 0 1\n7\n", "'7' after the last boundary edge");
  REQUIRE_THROWS_WITH(airfoil::read_mesh(dir.file("missing.dat")), Catch::Contains("cannot open it"));
  REQUIRE_THROWS_WITH(airfoil::read_mesh(dir.path.string()), Catch::Contains("it is a folder"));
  refused("4 1 0 3000000000\n", "count 3000000000 is larger than an int");

  // A node index out of range is the map's to find, as for any map.
  const airfoil::mesh m = airfoil::read_mesh(dir.file("index.dat", "4 1 0 1\n" + nodes + "0 1 2 4\n0 1 0 1\n"));
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  REQUIRE_THROWS_WITH(airfoil::solver(rt, m, airfoil::flow{}), Catch::Contains("pcell") && Catch::Contains("4"));
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
  for (const auto& [c_kernels, conflicts] : {std::pair{false, pl::conflicts::atomics}, std::pair{true, pl::conflicts::atomics},
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
