// SPDX-License-Identifier: MIT
// par_loop refuses arguments that do not fit the loop, with a message naming what is wrong.
#include <catch2/catch.hpp>

#include <vector>

#include <parloop/parloop.hpp>

namespace pl = parloop;
using Catch::Matchers::Contains;

namespace {

struct mesh {
  pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
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
  const pl::Runtime other = pl::Runtime::open(pl::backend_kind::host);
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
