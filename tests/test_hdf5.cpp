// SPDX-License-Identifier: MIT
// HDF5 files (io/hdf5.hpp): sets, maps, dats and constants written and read back with the same
// values and numbering, in every scalar type and several dimensions; a checkpoint written after a
// loop restarts a run that ends where an uninterrupted one does; renumbered sets are written in
// the user's numbering; files that are missing, damaged or not what was asked for are refused
// with the file, the dataset and what was expected; a checkpoint stopped half way leaves no file.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <parloop/io/hdf5.hpp>
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "temporary_folder.hpp"

namespace pl = parloop;
namespace h5 = parloop::hdf5;
using Catch::Matchers::Contains;
using parloop_test::random_map;
using parloop_test::random_values;

namespace {

template <class T, int Dim>
void round_trip(const pl::Runtime& rt, const std::string& path) {
  pl::Set cells(rt, 37, "cells"), nodes(rt, 23, "nodes");
  const std::vector<pl::index_t> targets = random_map(37, 23, 3);
  pl::Map cell_nodes(cells, nodes, 3, targets, "cell_nodes");
  const std::vector<T> values = random_values<T>(37 * Dim);
  pl::Dat<T, Dim> q(cells, values, "q");
  const std::vector<T> constant = random_values<T>(Dim);
  {
    h5::File file = h5::File::create(path);
    h5::write(file, cells);
    h5::write(file, nodes);
    h5::write(file, cell_nodes);
    h5::write(file, q);
    h5::write(file, q, "/a/b/q_copy");
    h5::write_constant(file, "c", std::span<const T>(constant));
  }
  const h5::File file = h5::File::open(path);
  pl::Set cells2 = h5::read_set(rt, file, "cells"), nodes2 = h5::read_set(rt, file, "nodes");
  CHECK(cells2.size() == 37);
  CHECK(nodes2.size() == 23);
  const pl::Map m = h5::read_map(file, "cell_nodes", cells2, nodes2);
  CHECK(m.arity() == 3);
  CHECK(std::vector<pl::index_t>(m.values().begin(), m.values().end()) == targets);
  for (const char* name : {"q", "/a/b/q_copy", "a/b/q_copy"}) {
    const pl::Dat<T, Dim> back = h5::read_dat<T, Dim>(file, name, cells2);
    CHECK(std::vector<T>(back.host().begin(), back.host().end()) == values);
  }
  CHECK(h5::read_constant<T>(file, "c", Dim) == constant);
}

}  // namespace

TEMPLATE_TEST_CASE("hdf5: what is written reads back the same, in every type", "[hdf5]", double, float, std::int32_t,
                   std::int64_t) {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  parloop_test::temporary_folder folder;
  const std::string path = (folder.path / "mesh.h5").string();
  round_trip<TestType, 1>(rt, path);
  std::filesystem::remove(path);
  round_trip<TestType, 4>(rt, path);
  std::filesystem::remove(path);
  round_trip<TestType, 7>(rt, path);
}

TEST_CASE("hdf5: a renumbered mesh is written in the user's numbering", "[hdf5]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  parloop_test::temporary_folder folder;
  const std::string path = (folder.path / "renumbered.h5").string();
  pl::Set cells(rt, 200, "cells"), edges(rt, 390, "edges");
  const std::vector<pl::index_t> ends = random_map(390, 200, 2);
  pl::Map edge_cells(edges, cells, 2, ends, "edge_cells");
  const std::vector<double> values = random_values<double>(200 * 2);
  pl::Dat<double, 2> q(cells, values, "q");
  pl::renumber(cells);
  REQUIRE(cells.renumbered());
  {
    h5::File file = h5::File::create(path);
    h5::write(file, edge_cells);
    h5::write(file, q);
  }
  const h5::File file = h5::File::open(path);
  pl::Set cells2(rt, 200), edges2(rt, 390);
  const pl::Map m = h5::read_map(file, "edge_cells", edges2, cells2, 2);
  CHECK(std::vector<pl::index_t>(m.values().begin(), m.values().end()) == ends);
  const auto q2 = h5::read_dat<double, 2>(file, "q", cells2);
  CHECK(std::vector<double>(q2.host().begin(), q2.host().end()) == values);
}

TEST_CASE("hdf5: a run restarted from a checkpoint ends where an uninterrupted one does", "[hdf5]") {
  const pl::Runtime rt = parloop_test::device_runtime();
  parloop_test::temporary_folder folder;
  const std::string path = (folder.path / "checkpoint.h5").string();
  pl::Set cells(rt, 300, "cells"), edges(rt, 700, "edges");
  pl::Map edge_cells(edges, cells, 2, random_map(700, 300, 2), "edge_cells");
  const std::vector<double> start = random_values<double>(300);
  auto step = [&](pl::Dat<double>& q, pl::Dat<double>& flux) {
    pl::par_loop(pl::kernel("hdf5_flux",
                            [](auto a, auto b, auto fa, auto fb) {
                              auto f = pl::let(0.25 * (a[0] - b[0]));
                              fa[0] -= f;
                              fb[0] += f;
                            }),
                 edges, q(pl::READ, edge_cells, 0), q(pl::READ, edge_cells, 1), flux(pl::INC, edge_cells, 0),
                 flux(pl::INC, edge_cells, 1));
    pl::par_loop(pl::kernel("hdf5_update",
                            [](auto x, auto f) {
                              x[0] += f[0];
                              f[0] = 0.0;
                            }),
                 cells, q(pl::RW), flux(pl::RW));
  };
  pl::Dat<double> q(cells, start, "q"), flux(cells, "flux");
  for (int i = 0; i < 5; ++i) step(q, flux);
  h5::checkpoint(path, q, flux);
  for (int i = 0; i < 5; ++i) step(q, flux);

  pl::Dat<double> q2(cells, "q"), flux2(cells, "flux");
  h5::restart(path, q2, flux2);
  for (int i = 0; i < 5; ++i) step(q2, flux2);
  // The same loops from the same values: the same order of operations on the host and, with
  // increments in a fixed order per run, the same rounding; atomics may order them otherwise.
  for (std::size_t i = 0; i < start.size(); ++i) CHECK(q2.host()[i] == Approx(q.host()[i]).epsilon(1e-12));
}

TEST_CASE("hdf5: files that are not what was asked for are refused, naming the file and the dataset", "[hdf5]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  parloop_test::temporary_folder folder;
  const std::string path = (folder.path / "mesh.h5").string();
  pl::Set cells(rt, 1000, "cells"), nodes(rt, 10, "nodes");
  pl::Map cell_nodes(cells, nodes, 2, random_map(1000, 10, 2), "cell_nodes");
  pl::Dat<double, 4> q(cells, random_values<double>(4000), "q");
  {
    h5::File file = h5::File::create(path);
    h5::write(file, cells);
    h5::write(file, cell_nodes);
    h5::write(file, q);
    h5::write_constant(file, "gam", 1.4);
  }
  {
    const h5::File file = h5::File::open(path);
    CHECK_THROWS_WITH((h5::read_dat<double, 4>(file, "p", cells)), Contains(path) && Contains("no dataset 'p'"));
    CHECK_THROWS_WITH((h5::read_dat<float, 4>(file, "q", cells)),
                      Contains("dataset 'q' read as dat 'q' holds 8-byte floating point; expected float"));
    CHECK_THROWS_WITH((h5::read_dat<double, 3>(file, "q", cells)), Contains("has 4 values a row; expected 3"));
    CHECK_THROWS_WITH((h5::read_dat<double, 4>(file, "q", nodes)), Contains("has 1000 rows; expected 10"));
    CHECK_THROWS_WITH(h5::read_set(rt, file, "q"), Contains("read as a set holds 4000 value(s)"));
    CHECK_THROWS_WITH(h5::read_map(file, "cell_nodes", cells, pl::Set(rt, 5, "few")),
                      Contains(path) && Contains("outside target set 'few'"));
    CHECK_THROWS_WITH(h5::read_constant<double>(file, "gam", 2), Contains("constant of 2 values holds 1"));
    // A restart refused changes none of the dats, the ones whose datasets are fine included.
    pl::Dat<double, 4> kept(cells, "q");
    kept.host_view(pl::WRITE)[0] = 5.0;
    pl::Dat<double> missing(cells, "missing");
    CHECK_THROWS_WITH(h5::restart(path, kept, missing), Contains("no dataset 'missing'"));
    CHECK(kept.host()[0] == 5.0);
  }
  CHECK_THROWS_WITH(h5::File::open((folder.path / "none.h5").string()), Contains("none.h5: no such file"));
  const std::string text = (folder.path / "text.h5").string();
  std::ofstream(text) << "nnode ncell\n";
  CHECK_THROWS_WITH(h5::File::open(text), Contains("not an HDF5 file"));
  // Truncated: the header survives, the values do not.
  const std::string cut = (folder.path / "cut.h5").string();
  std::filesystem::copy_file(path, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 20000);
  CHECK_THROWS_AS(
      [&] {
        const h5::File file = h5::File::open(cut);
        static_cast<void>(h5::read_dat<double, 4>(file, "q", cells));
      }(),
      pl::file_error);
}

TEST_CASE("hdf5: a checkpoint stopped half way leaves no file; a dataset is not written over with another shape",
          "[hdf5]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  parloop_test::temporary_folder folder;
  const std::string path = (folder.path / "checkpoint.h5").string();
  pl::Set cells(rt, 10, "cells"), nodes(rt, 4, "nodes");
  pl::Dat<double> a(cells, "a");
  pl::Dat<double> b(nodes, "a");  // the same name on another set: its dataset would be another shape
  CHECK_THROWS_WITH(h5::checkpoint(path, a, b), Contains("dataset 'a' is there already as 10 x 1"));
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(std::filesystem::is_empty(folder.path));
  h5::checkpoint(path, a);
  CHECK(std::filesystem::exists(path));
  h5::File file = h5::File::append(path);
  h5::write(file, a, "again");  // added beside it
  CHECK_THROWS_WITH(h5::write(file, b), Contains("is there already"));
  file.close();
  h5::File reading = h5::File::open(path);
  CHECK_THROWS_WITH(h5::write(reading, a), Contains("opened to read"));
}

// The mesh tests/hdf5_op2_layout.py writes as OP2 does and checks this writes as OP2 does.
TEST_CASE("hdf5: a file in OP2's layout reads here, and what is written here is in OP2's layout", "[hdf5]") {
  const char* op2_file = std::getenv("PARLOOP_TEST_HDF5_OP2_FILE");
  const char* parloop_file = std::getenv("PARLOOP_TEST_HDF5_PARLOOP_FILE");
  if (op2_file == nullptr || parloop_file == nullptr) {
    WARN("PARLOOP_TEST_HDF5_OP2_FILE and _PARLOOP_FILE unset: ctest runs this with tests/hdf5_op2_layout.py");
    return;
  }
  constexpr int nodes_size = 9, cells_size = 6;
  std::vector<pl::index_t> pcell;
  for (int c = 0; c < cells_size; ++c)
    for (int k = 0; k < 4; ++k) pcell.push_back((c + k) % nodes_size);
  std::vector<double> x, q, adt;
  for (int n = 0; n < nodes_size; ++n)
    for (int j = 0; j < 2; ++j) x.push_back(n + 0.5 * j);
  std::vector<std::int32_t> bound;
  for (int c = 0; c < cells_size; ++c) {
    for (int j = 0; j < 4; ++j) q.push_back(c * 10.0 + j);
    bound.push_back(c % 3);
    adt.push_back(c * 0.25);
  }
  const std::vector<double> qinf{1.0, 0.5, 0.0, 2.5};

  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const h5::File file = h5::File::open(op2_file);
  const pl::Set nodes = h5::read_set(rt, file, "nodes"), cells = h5::read_set(rt, file, "cells");
  REQUIRE(nodes.size() == nodes_size);
  REQUIRE(cells.size() == cells_size);
  const pl::Map m = h5::read_map(file, "pcell", cells, nodes, 4);
  CHECK(std::vector<pl::index_t>(m.values().begin(), m.values().end()) == pcell);
  const auto p_x = h5::read_dat<double, 2>(file, "p_x", nodes);
  CHECK(std::vector<double>(p_x.host().begin(), p_x.host().end()) == x);
  // A dat of "double:soa" in OP2: its values are rows of doubles all the same.
  const auto p_q = h5::read_dat<double, 4>(file, "/group3/group2/p_q", cells);
  CHECK(std::vector<double>(p_q.host().begin(), p_q.host().end()) == q);
  const auto p_bound = h5::read_dat<std::int32_t>(file, "p_bound", cells);
  CHECK(std::vector<std::int32_t>(p_bound.host().begin(), p_bound.host().end()) == bound);
  const auto p_adt = h5::read_dat<double>(file, "p_adt", cells);  // a rank-1 dataset: dim 1
  CHECK(std::vector<double>(p_adt.host().begin(), p_adt.host().end()) == adt);
  CHECK(h5::read_constant<double>(file, "qinf", 4) == qinf);

  std::filesystem::remove(parloop_file);
  h5::File out = h5::File::create(parloop_file);
  h5::write(out, nodes);
  h5::write(out, cells);
  h5::write(out, m);
  h5::write(out, p_x);
  h5::write(out, p_q, "results/step_1/p_q");
  h5::write(out, p_bound);
  h5::write_constant(out, "qinf", std::span<const double>(qinf));
}
