// SPDX-License-Identifier: MIT
// pl::renumber (order/renumber.hpp): on the host and on the device under test, a renumbered mesh's
// loops give the answers of the same mesh left as declared (to the summation order's rounding:
// increments run in another order), and everything read or written by index -- views, values
// of dats and maps made afterwards, Map::values, errors -- stays in the user's numbering.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_values;

namespace {

std::array<pl::backend_kind, 2> backends() { return {pl::backend_kind::host, parloop_test::device_backend()}; }

// A random mesh: cells, edges (-> 2 cells, -> 2 nodes), nodes, boundary edges (-> 1 cell); a flux
// through the edges into the cells, a direct update of the cells with a sum, a minimum through
// the boundary edges. Returns the cells' values, then the sum.
struct mesh_values {
  std::vector<pl::index_t> ecell, enode, bcell;
  std::vector<double> q, x, w;
};

mesh_values random_mesh_values(int cells, int edges, int nodes, int bedges) {
  return {parloop_test::random_map(edges, cells, 2),
          parloop_test::random_map(edges, nodes, 2),
          parloop_test::random_map(bedges, cells, 1),
          parloop_test::random_values<double>(4 * std::size_t(cells)),
          parloop_test::random_values<double>(2 * std::size_t(nodes)),
          parloop_test::random_values<double>(std::size_t(edges))};
}

std::vector<double> solve(const pl::Runtime& rt, const mesh_values& v, int cells, int edges, int nodes, int bedges,
                          bool renumbered) {
  const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges"), node(rt, nodes, "nodes"),
      bedge(rt, bedges, "bedges");
  const pl::Map ecell(edge, cell, 2, v.ecell, "ecell"), enode(edge, node, 2, v.enode, "enode"),
      bcell(bedge, cell, 1, v.bcell, "bcell");
  pl::Dat<double, 4> q(cell, v.q, "q");
  const pl::Dat<double, 2> x(node, v.x, "x");
  const pl::Dat<double> w(edge, v.w, "w");
  pl::Dat<double, 4> res(cell, "res");
  pl::Dat<double> low(cell, std::vector<double>(std::size_t(cells), 100.0), "low");
  pl::Global<double> total(rt, 0.0);
  if (renumbered) {
    pl::renumber(cell);
    REQUIRE(edge.renumbered());
    REQUIRE(node.renumbered());
    REQUIRE(bedge.renumbered());
    // Map::values stays as given.
    CHECK(std::equal(ecell.values().begin(), ecell.values().end(), v.ecell.begin(), v.ecell.end()));
  }
  auto flux = pl::kernel("renumber_flux", [](auto w, auto x0, auto x1, auto q0, auto q1, auto r0, auto r1) {
    for (int i = 0; i < 4; ++i) {
      r0[i] += w[0] * (x0[0] - x1[1]) * (q0[i] - q1[i]);
      r1[i] -= w[0] * (x0[0] - x1[1]) * (q0[i] - q1[i]);
    }
  });
  auto update = pl::kernel("renumber_update", [](auto res, auto q, auto total) {
    for (int i = 0; i < 4; ++i) {
      q[i] += 0.5 * res[i];
      total += res[i] * res[i];
      res[i] = 0.0;
    }
  });
  auto lowest = pl::kernel("renumber_low", [](auto q, auto low) { low = pl::min(low, q[0] + q[3]); });
  for (int step = 0; step < 3; ++step) {
    pl::par_loop(flux, edge, w(pl::READ), x(pl::READ, enode, 0), x(pl::READ, enode, 1), q(pl::READ, ecell, 0),
                 q(pl::READ, ecell, 1), res(pl::INC, ecell, 0), res(pl::INC, ecell, 1));
    pl::par_loop(update, cell, res(pl::RW), q(pl::RW), total(pl::INC));
    pl::par_loop(lowest, bedge, q(pl::READ, bcell, 0), low(pl::MIN, bcell, 0));
  }
  const auto qs = q.host();
  const auto ls = low.host();
  std::vector<double> out(qs.begin(), qs.end());
  out.insert(out.end(), ls.begin(), ls.end());
  out.push_back(total.value());
  return out;
}

}  // namespace

TEST_CASE("a renumbered mesh's loops give the answers of the mesh as declared, in the user's numbering", "[renumber]") {
  const int cells = 3000, edges = 7000, nodes = 2500, bedges = 400;
  const mesh_values v = random_mesh_values(cells, edges, nodes, bedges);
  // The host backend on the mesh as declared is the oracle for every backend, renumbered or not.
  const std::vector<double> oracle =
      solve(pl::Runtime::open(pl::backend_kind::host), v, cells, edges, nodes, bedges, false);
  for (const pl::backend_kind b : backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const std::vector<double> as_declared = solve(rt, v, cells, edges, nodes, bedges, false);
    const std::vector<double> renumbered = solve(rt, v, cells, edges, nodes, bedges, true);
    check_values<double>(renumbered, as_declared);
    check_values<double>(renumbered, oracle);
  }
}

TEST_CASE("views, new dats and maps, and errors keep the user's numbering once a set is renumbered", "[renumber]") {
  for (const pl::backend_kind b : backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const int cells = 500, edges = 1200;
    const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges");
    const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
    const pl::Map ecell(edge, cell, 2, e2c, "ecell");
    std::vector<double> numbers(cells);
    std::iota(numbers.begin(), numbers.end(), 0.0);
    pl::Dat<double> before(cell, numbers, "before");
    // A view taken before renumbering keeps showing the user's numbering after it.
    const std::span<const double> early = before.host();
    pl::renumber(cell);
    std::vector<pl::index_t> moved;
    for (pl::index_t c = 0; c < cells; ++c) {
      if (cell.user_number(c) != c) moved.push_back(c);
    }
    CHECK(moved.size() > std::size_t(cells) / 2);  // the test means something
    check_values<double>(early, numbers);

    // A view, before and after loops; a write through a view reaches the next loop.
    check_values<double>(before.host(), numbers);
    {
      const auto out = before.host_view(pl::WRITE);
      for (int c = 0; c < cells; ++c) out[std::size_t(c)] = 2.0 * c;
    }
    auto triple = pl::kernel("renumber_triple", [](auto v) { v *= 3.0; });
    pl::par_loop(triple, cell, before(pl::RW));
    std::vector<double> six(cells);
    for (int c = 0; c < cells; ++c) six[std::size_t(c)] = 6.0 * c;
    check_values<double>(before.host(), six);

    // A dat and a map made afterwards take the user's numbers: each cell counts the edge slots
    // that reach it, which the map's values say by hand.
    const pl::Dat<double> after(cell, numbers, "after");
    // Its view, made when first asked for, shows them as given; so does a loop's copy, which the
    // loop below tripling a dat made afterwards and first written through a view reads.
    check_values<double>(after.host(), numbers);
    pl::Dat<double> fresh(cell, "fresh");
    {
      const auto out = fresh.host_view(pl::WRITE);
      for (int c = 0; c < cells; ++c) out[std::size_t(c)] = 5.0 * c;
    }
    auto triple_sum = pl::kernel("renumber_triple_sum", [](auto v, auto w) { v = 3.0 * v + w; });
    pl::par_loop(triple_sum, cell, fresh(pl::RW), after(pl::READ));
    std::vector<double> sixteen(cells);
    for (int c = 0; c < cells; ++c) sixteen[std::size_t(c)] = 16.0 * c;
    check_values<double>(fresh.host(), sixteen);
    std::vector<pl::index_t> reach(static_cast<std::size_t>(edges) * 2);
    for (std::size_t i = 0; i < reach.size(); ++i) reach[i] = pl::index_t((i * 7 + 3) % std::size_t(cells));
    const pl::Map later(edge, cell, 2, reach, "later");
    CHECK(std::equal(later.values().begin(), later.values().end(), reach.begin(), reach.end()));
    pl::Dat<double> count(cell, "count");
    auto add = pl::kernel("renumber_count", [](auto a, auto b, auto n0, auto n1) {
      n0 += 1.0 + 0.0 * a;
      n1 += 1.0 + 0.0 * b;
    });
    pl::par_loop(add, edge, after(pl::READ, later, 0), after(pl::READ, later, 1), count(pl::INC, later, 0),
                 count(pl::INC, later, 1));
    std::vector<double> want(cells, 0.0);
    for (const pl::index_t c : reach) want[std::size_t(c)] += 1.0;
    check_values<double>(count.host(), want);

    // A range is refused; a write through a map whose targets meet runs them one at a time.
    CHECK_THROWS_WITH(
        pl::par_loop(triple, cell, pl::range{0, 10}, before(pl::RW)),
        Contains("set 'cells': pl::renumber has put its elements in another order") && Contains("[0, 10) given"));
    std::vector<pl::index_t> one_pair(static_cast<std::size_t>(cells));
    std::iota(one_pair.begin(), one_pair.end(), pl::index_t{0});
    one_pair[7] = 3;  // user elements 3 and 7 of the cells both reach cell 3
    const pl::Map self(cell, cell, 1, one_pair, "self");
    auto set_one = pl::kernel("renumber_set", [](auto v) { v = 1.0; });
    pl::par_loop(set_one, cell, count(pl::WRITE, self, 0));
    const auto written = count.host();
    for (int c = 0; c < cells; ++c) {
      if (c != 7) CHECK(written[static_cast<std::size_t>(c)] == 1.0);
    }
  }
}

TEST_CASE("renumbering again starts from the order there is, and the answers stay", "[renumber]") {
  const pl::Runtime rt = pl::Runtime::open(parloop_test::device_backend());
  const int cells = 800, edges = 2000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const auto w0 = parloop_test::random_values<double>(std::size_t(edges));
  const pl::Set cell(rt, cells), edge(rt, edges);
  const pl::Map ecell(edge, cell, 2, e2c);
  const pl::Dat<double> w(edge, w0);
  pl::Dat<double> acc(cell);
  auto spread = pl::kernel("renumber_spread", [](auto w, auto a, auto b) {
    a += w;
    b -= 2.0 * w;
  });
  pl::renumber(cell);
  pl::par_loop(spread, edge, w(pl::READ), acc(pl::INC, ecell, 0), acc(pl::INC, ecell, 1));
  // A view taken between the two renumberings, of either set, keeps the user's numbering.
  const std::span<const double> weights = w.host();
  pl::renumber(edge);
  check_values<double>(weights, w0);
  pl::par_loop(spread, edge, w(pl::READ), acc(pl::INC, ecell, 0), acc(pl::INC, ecell, 1));
  std::vector<double> want(cells, 0.0);
  for (int e = 0; e < edges; ++e) {
    want[std::size_t(e2c[2 * std::size_t(e)])] += 2.0 * w0[std::size_t(e)];
    want[std::size_t(e2c[2 * std::size_t(e) + 1])] -= 4.0 * w0[std::size_t(e)];
  }
  check_values<double>(acc.host(), want);
}

TEST_CASE("an autotuned loop starts from what a view wrote into a renumbered dat", "[renumber][autotune]") {
  // Tuned afresh: the disk cache holds no choice for it.
  const parloop_test::scoped_env off("PARLOOP_CACHE", "off");
  const pl::Runtime rt = pl::Runtime::open(parloop_test::device_backend());
  const int cells = 4000, edges = 8000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const pl::Set cell(rt, cells), edge(rt, edges);
  const pl::Map ecell(edge, cell, 2, e2c);
  pl::Dat<double> acc(cell);
  pl::renumber(cell);
  {
    const auto v = acc.host_view(pl::WRITE);
    for (double& x : v) x = 1000.0;
  }
  auto count = pl::kernel("renumber_tuned_count", [](auto a, auto b) {
    a += 1.0;
    b += 1.0;
  });
  pl::par_loop(count, edge, pl::autotune{}, acc(pl::INC, ecell, 0), acc(pl::INC, ecell, 1));
  std::vector<double> want(cells, 1000.0);
  for (const pl::index_t c : e2c) want[std::size_t(c)] += 1.0;
  check_values<double>(acc.host(), want);
}
