// SPDX-License-Identifier: MIT
// par_loop refuses arguments that do not fit the loop, with a message naming what is wrong, the
// same on the host and on a device (PARLOOP_TEST_BACKEND=opencl|cuda: test_errors_opencl,
// test_errors_cuda).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include <parloop/parloop.hpp>

#include "device_under_test.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_errors {

namespace pl = parloop;
using Catch::Matchers::Contains;

namespace {

pl::Runtime test_runtime() { return pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host)); }

struct mesh {
  pl::Runtime rt = test_runtime();
  pl::Set cells{rt, 4, "cells"};
  pl::Set edges{rt, 3, "edges"};
  pl::Set nodes{rt, 5, "nodes"};
  pl::Map e2c{edges, cells, 2, std::vector<pl::index_t>{0, 1, 1, 2, 2, 3}, "e2c"};
  pl::Map c2n{cells, nodes, 1, std::vector<pl::index_t>{0, 1, 2, 3}, "c2n"};
  pl::Dat<double> on_cells{cells, "q"};
  pl::Dat<double> on_edges{edges, "w"};
};

const auto copy = pl::kernel("copy", [](auto a, auto b) { b = a; });

}  // namespace

TEST_CASE("a direct dat must be on the iteration set", "[errors]") {
  mesh m;
  CHECK_THROWS_AS(pl::par_loop(copy, m.edges, m.on_cells(pl::READ), m.on_edges(pl::WRITE)), pl::argument_error);
  CHECK_THROWS_WITH(pl::par_loop(copy, m.edges, m.on_cells(pl::READ), m.on_edges(pl::WRITE)),
                    Contains("par_loop 'copy' over 'edges', argument 0: dat 'q' is on set 'cells', not on the "
                             "iteration set"));
}

TEST_CASE("a map must go from the iteration set to the dat's set", "[errors]") {
  mesh m;
  CHECK_THROWS_WITH(pl::par_loop(copy, m.edges, m.on_cells(pl::READ, m.c2n, 0), m.on_edges(pl::WRITE)),
                    Contains("argument 0: map 'c2n' maps from set 'cells', not from the iteration set"));
  pl::Dat<double> on_nodes(m.nodes, "n");
  CHECK_THROWS_WITH(pl::par_loop(copy, m.edges, on_nodes(pl::READ, m.e2c, 0), m.on_edges(pl::WRITE)),
                    Contains("argument 0: map 'e2c' maps to set 'cells', but dat 'n' is on set 'nodes'"));
  auto first = pl::kernel("first", [](auto a, auto b) { b = a[0]; });
  CHECK_THROWS_WITH(pl::par_loop(first, m.edges, on_nodes(pl::READ, m.e2c), m.on_edges(pl::WRITE)),
                    Contains("map 'e2c' maps to set 'cells'"));
}

TEST_CASE("a map slot must be below the arity", "[errors]") {
  mesh m;
  CHECK_THROWS_WITH(pl::par_loop(copy, m.edges, m.on_cells(pl::READ, m.e2c, 2), m.on_edges(pl::WRITE)),
                    Contains("argument 0: slot 2 of map 'e2c', which has arity 2"));
  CHECK_THROWS_AS(pl::par_loop(copy, m.edges, m.on_cells(pl::READ, m.e2c, -1), m.on_edges(pl::WRITE)),
                  pl::argument_error);
}

TEST_CASE("a range must lie within the set", "[errors]") {
  mesh m;
  pl::Dat<double> other(m.edges);
  for (const pl::range r : {pl::range{-1, 2}, pl::range{2, 1}, pl::range{0, 4}}) {
    CHECK_THROWS_AS(pl::par_loop(copy, m.edges, r, m.on_edges(pl::READ), other(pl::WRITE)), pl::argument_error);
  }
  CHECK_THROWS_WITH(pl::par_loop(copy, m.edges, pl::range{0, 4}, m.on_edges(pl::READ), other(pl::WRITE)),
                    Contains("range [0, 4) is not within set 'edges' of size 3"));
  CHECK_NOTHROW(pl::par_loop(copy, m.edges, pl::range{3, 3}, m.on_edges(pl::READ), other(pl::WRITE)));
}

TEST_CASE("arguments must belong to the loop's runtime", "[errors]") {
  mesh m;
  const pl::Runtime other = test_runtime();
  pl::Global<double> g(other, 1.0, "g");
  auto k = pl::kernel("scale", [](auto w, auto g) { w = w * g; });
  CHECK_THROWS_WITH(pl::par_loop(k, m.edges, m.on_edges(pl::RW), g(pl::READ)),
                    Contains("argument 1: 'g' belongs to another runtime"));
}

TEST_CASE("a failed check leaves the data untouched", "[errors]") {
  mesh m;
  m.on_edges.host_view(pl::WRITE)[0] = 42.0;
  auto k = pl::kernel("bump", [](auto w, auto q) {
    w += 1.0;
    q += 1.0;
  });
  CHECK_THROWS(pl::par_loop(k, m.edges, m.on_edges(pl::INC), m.on_cells(pl::INC, m.e2c, 5)));
  CHECK(m.on_edges.host()[0] == 42.0);
}

TEST_CASE("the same data twice, one use modifying it, is refused; sharing that is safe runs", "[errors][aliasing]") {
  mesh m;
  pl::Global<double> g(m.rt, 1.0, "g");
  const pl::Map next(m.cells, m.cells, 1, std::vector<pl::index_t>{1, 2, 3, 0}, "next");
  auto scaled = pl::kernel("scaled", [](auto x, auto gr, auto gi) { gi += gr * x; });
  CHECK_THROWS_AS(pl::par_loop(scaled, m.cells, m.on_cells(pl::READ), g(pl::READ), g(pl::INC)), pl::argument_error);
  CHECK_THROWS_WITH(pl::par_loop(scaled, m.cells, m.on_cells(pl::READ), g(pl::READ), g(pl::INC)),
                    Contains("par_loop 'scaled': arguments 1 (pl::READ) and 2 (pl::INC) are the same global 'g', and "
                             "one modifies it"));
  auto twice = pl::kernel("twice", [](auto a, auto b) {
    a += 1.0;
    b += 1.0;
  });
  CHECK_THROWS_WITH(pl::par_loop(twice, m.edges, m.on_cells(pl::RW, m.e2c, 0), m.on_cells(pl::RW, m.e2c, 0)),
                    Contains("arguments 0 (pl::RW) and 1 (pl::RW) are the same dat 'q', and each modifies it"));
  // A direct INC adds in place, and an INC through a map from another element can meet it.
  CHECK_THROWS_AS(pl::par_loop(twice, m.cells, m.on_cells(pl::INC), m.on_cells(pl::INC, next, 0)), pl::argument_error);
  // INC and MIN of one dat through maps do not combine in any order.
  auto mixed = pl::kernel("mixed", [](auto a, auto b) {
    a += 1.0;
    b = pl::min(b, 0.0);
  });
  CHECK_THROWS_AS(pl::par_loop(mixed, m.edges, m.on_cells(pl::INC, m.e2c, 0), m.on_cells(pl::MIN, m.e2c, 1)),
                  pl::argument_error);
  auto cascade = pl::kernel("cascade", [](auto x, auto y) { y += x; });
  CHECK_THROWS_WITH(pl::par_loop(cascade, m.cells, m.on_cells(pl::READ), m.on_cells(pl::INC, next, 0)),
                    Contains("arguments 0 (pl::READ) and 1 (pl::INC) are the same dat 'q'"));
  CHECK(g.value() == 1.0);

  // Safe by construction: every use READ; every use INC through maps (the same slot too).
  m.on_cells.host_view(pl::WRITE)[1] = 2.0;
  auto both = pl::kernel("both", [](auto a, auto b, auto w) { w = a + b; });
  pl::par_loop(both, m.edges, m.on_cells(pl::READ, m.e2c, 0), m.on_cells(pl::READ, m.e2c, 1), m.on_edges(pl::WRITE));
  CHECK(m.on_edges.host()[0] == 2.0);
  auto spread = pl::kernel("spread", [](auto a, auto b) {
    a += 1.0;
    b += 1.0;
  });
  pl::par_loop(spread, m.edges, m.on_cells(pl::INC, m.e2c, 0), m.on_cells(pl::INC, m.e2c, 1));
  pl::par_loop(spread, m.edges, m.on_cells(pl::INC, m.e2c, 1), m.on_cells(pl::INC, m.e2c, 1));
  const auto q = m.on_cells.host();
  CHECK(std::vector<double>(q.begin(), q.end()) == std::vector<double>{1.0, 6.0, 4.0, 3.0});
}

TEST_CASE("a strategy no device can launch is refused on every backend", "[errors][strategy]") {
  mesh m;
  CHECK_THROWS_WITH(
      pl::par_loop(copy, m.edges, pl::split_n_across_workgroups{2048}, m.on_edges(pl::READ), m.on_edges(pl::WRITE)),
      Contains("the block must be 1 to 1024"));
  pl::Dat<double> out(m.edges, "out");
  CHECK_THROWS_AS(pl::par_loop(copy, m.edges, pl::chunked{16, 0}, m.on_edges(pl::READ), out(pl::WRITE)),
                  pl::argument_error);
  CHECK_THROWS_AS(pl::par_loop(copy, m.edges, pl::grid_stride{64, 0}, m.on_edges(pl::READ), out(pl::WRITE)),
                  pl::argument_error);
}

TEST_CASE("RW and WRITE through a map whose targets meet run their elements one at a time", "[errors][collision]") {
  mesh m;
  // e2c slot 0 reaches cells 0, 1, 2 (distinct); slot 1 reaches 1, 2, 3 (distinct); the whole
  // map reaches cell 1 from edges 0 and 1. Every serial order gives these sums (small integers);
  // two elements run at once would lose a store.
  auto bump = pl::kernel("bump", [](auto a) { a = a + 1.0; });
  auto bump_all = pl::kernel("bump_all", [](auto a) {
    a[0] = a[0] + 1.0;
    a[1] = a[1] + 1.0;
  });
  pl::par_loop(bump_all, m.edges, m.on_cells(pl::RW, m.e2c));
  pl::par_loop(bump, m.edges, m.on_cells(pl::RW, m.e2c, 0));
  pl::par_loop(bump, m.edges, m.on_cells(pl::RW, m.e2c, 1));
  auto q = m.on_cells.host();
  CHECK(std::vector<double>(q.begin(), q.end()) == std::vector<double>{2.0, 4.0, 4.0, 2.0});

  // Many elements onto one target, as in a loop that counts: each adds its one.
  pl::Set many(m.rt, 1000, "many");
  const pl::Map onto_one(many, m.cells, 1, std::vector<pl::index_t>(1000, 2), "onto_one");
  pl::par_loop(bump, many, m.on_cells(pl::RW, onto_one, 0));
  CHECK(m.on_cells.host()[2] == 1004.0);
  pl::par_loop(bump, many, pl::range{500, 1000}, m.on_cells(pl::RW, onto_one, 0));
  CHECK(m.on_cells.host()[2] == 1504.0);
  auto write_one = pl::kernel("write_one", [](auto a) { a = 5.0; });
  pl::par_loop(write_one, many, m.on_cells(pl::WRITE, onto_one, 0));
  CHECK(m.on_cells.host()[2] == 5.0);

  // One element's row naming a target twice: its pointers alias on the host, and are copies on a
  // device.
  const pl::Map twice(m.edges, m.cells, 2, {0, 0, 1, 2, 2, 3}, "twice");
  CHECK_THROWS_WITH(pl::par_loop(bump_all, m.edges, m.on_cells(pl::RW, twice)),
                    Contains("par_loop 'bump_all' over 'edges', argument 0: dat 'q' is declared pl::RW through map "
                             "'twice', whose row for element 0 names element 0 of 'cells' twice"));

  // Accumulating is what INC is for: every backend adds every element, at once where it can.
  auto count = pl::kernel("count", [](auto a) { a += 1.0; });
  pl::par_loop(count, many, m.on_cells(pl::INC, onto_one, 0));
  CHECK(m.on_cells.host()[2] == 1005.0);
}

}  // namespace test_errors
