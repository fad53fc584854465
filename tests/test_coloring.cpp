// SPDX-License-Identifier: MIT
// Loops run a colour at a time (pl::conflicts::colors): the colouring (every element once, no
// two of a colour meeting at a target, more than 32 colours too), the generated code (plain
// stores, elements from the order), and loops that combine through maps on the device under
// test against the host backend, with every strategy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <parloop/codegen/generate.hpp>
#include <parloop/exec/kernel_source.hpp>
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"

namespace pl = parloop;
using parloop_test::random_map;
using parloop_test::random_values;

namespace {

// Checks the colouring's promise: the range's elements, each once, colour by colour in element
// order, and no two elements of one colour reaching one target of a space.
void check_coloring(const pl::detail::coloring& c, pl::index_t start, pl::index_t end,
                    const std::vector<pl::detail::combined_targets>& through) {
  REQUIRE(c.offsets.front() == 0);
  REQUIRE(c.offsets.back() == end - start);
  std::vector<pl::index_t> sorted = c.order;
  std::sort(sorted.begin(), sorted.end());
  for (pl::index_t i = 0; i < end - start; ++i) REQUIRE(sorted[static_cast<std::size_t>(i)] == start + i);
  for (int colour = 0; colour < c.colors(); ++colour) {
    const auto first = c.offsets[static_cast<std::size_t>(colour)], last = c.offsets[static_cast<std::size_t>(colour) + 1];
    REQUIRE(first < last);  // no empty colour
    std::set<std::pair<int, pl::index_t>> reached;
    for (auto p = first; p < last; ++p) {
      const pl::index_t e = c.order[static_cast<std::size_t>(p)];
      if (p > first) REQUIRE(c.order[static_cast<std::size_t>(p) - 1] < e);
      // An element may reach one target twice itself; only other elements of its colour may not.
      std::set<std::pair<int, pl::index_t>> mine;
      for (const auto& t : through) {
        for (int j = t.first_slot; j <= t.last_slot; ++j) {
          mine.insert({t.space, t.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(t.arity) + static_cast<std::size_t>(j)]});
        }
      }
      for (const auto& target : mine) {
        INFO("colour " << colour << ", element " << e << ", target " << target.second);
        REQUIRE(reached.insert(target).second);
      }
    }
  }
}

}  // namespace

TEST_CASE("a colouring holds every element once, and no two of a colour meet at a target", "[coloring]") {
  pl::transfer_stats transfers;
  const int n = 2000, targets = 300;
  const std::vector<pl::index_t> edges = random_map(n, targets, 2), other = random_map(n, targets, 3);
  const std::vector<pl::index_t> elsewhere = random_map(n, 50, 1);
  using t = pl::detail::combined_targets;
  const std::vector<std::vector<t>> cases = {
      {{edges, 2, 0, 0, 0, targets}},                                   // one slot
      {{edges, 2, 0, 1, 0, targets}},                                   // both slots (a whole map)
      {{edges, 2, 0, 0, 0, targets}, {edges, 2, 1, 1, 0, targets}},     // slot by slot, one space
      {{edges, 2, 0, 1, 0, targets}, {other, 3, 0, 2, 0, targets}},     // two maps to one set
      {{edges, 2, 1, 1, 0, targets}, {elsewhere, 1, 0, 0, 1, 50}},      // two target sets
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (const auto& [start, end] : {std::pair{0, n}, std::pair{123, 1500}, std::pair{7, 7}}) {
      INFO("case " << i << ", range [" << start << ", " << end << ")");
      const auto c = pl::detail::color_elements(start, end, cases[i], transfers);
      check_coloring(*c, start, end, cases[i]);
    }
  }
}

TEST_CASE("a colouring goes past 32 colours where elements meet at one target", "[coloring]") {
  pl::transfer_stats transfers;
  // Every element reaches target 0: a colour each, 100 colours over four passes.
  const std::vector<pl::index_t> star(100, 0);
  const std::vector<pl::detail::combined_targets> through{{star, 1, 0, 0, 0, 1}};
  const auto c = pl::detail::color_elements(0, 100, through, transfers);
  CHECK(c->colors() == 100);
  check_coloring(*c, 0, 100, through);
}

TEST_CASE("a coloured kernel stores plainly and takes its elements from the order", "[coloring][codegen]") {
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(host, 10), edges(host, 12);
  const pl::Map e2c(edges, cells, 2, random_map(12, 10, 2));
  pl::Dat<double> r(cells), w(edges);
  const auto k = pl::kernel("spread", [](auto w, auto r) {
    r[0] += w;
    r[1] += 2.0 * w;
  });
  pl::par_loop(k, edges, w(pl::READ), r(pl::INC, e2c));
  const auto ir = k.traced(w(pl::READ), r(pl::INC, e2c));
  for (const auto dialect : {pl::codegen::dialect_kind::opencl, pl::codegen::dialect_kind::cuda}) {
    const auto plain = pl::exec::make_source(*ir, dialect, pl::split_n_across_workgroups{}, {});
    const auto colored = pl::exec::make_source(*ir, dialect, pl::split_n_across_workgroups{}, {.colored = true});
    CHECK_THAT(plain.code.text, Catch::Contains("pl_atomic_add"));
    CHECK_THAT(colored.code.text, !Catch::Contains("pl_atomic_add") && Catch::Contains("pl_e = pl_order[pl_p]"));
    CHECK(colored.layout.back().role == pl::codegen::buffer_role::order);
    // A coloured loop's elements are not side by side: no vectors.
    const auto vectors = pl::exec::make_source(*ir, dialect, pl::vectors_across_workgroups{}, {.colored = true});
    CHECK_THAT(vectors.code.text, !Catch::Contains("pl_vec"));
  }
}

TEST_CASE("loops that combine through maps give the host's results coloured, with every strategy",
          "[coloring][device]") {
  const pl::Runtime device = parloop_test::device_runtime();
  const int n_cells = 500, n_edges = 3000;
  const std::vector<pl::index_t> edge_cells = random_map(n_edges, n_cells, 2);
  const std::vector<pl::index_t> edge_other = random_map(n_edges, n_cells, 1);
  const std::vector<double> weights = random_values<double>(n_edges);
  const std::vector<std::int32_t> counts = random_values<std::int32_t>(n_edges);
  const auto flux = pl::kernel("colored_flux", [](auto w, auto c, auto r, auto s, auto lo, auto hi, auto o) {
    r[0] += w;
    r[1] -= 0.5 * w;
    s[0] += c;
    s[1] += 2 * c;
    lo = pl::min(lo, w);
    hi = pl::max(hi, w);
    o += w * w;
  });
  struct result {
    std::vector<double> r, lo, hi, o;
    std::vector<std::int32_t> s;
  };
  const auto values = [](const auto& d) {
    const auto h = d.host();
    return std::vector<typename std::decay_t<decltype(h)>::value_type>(h.begin(), h.end());
  };
  // The loop over `range` with these options (a strategy, pl::conflicts), on fresh data.
  const auto run = [&](const pl::Runtime& rt, pl::range range, const auto&... how) {
    const pl::Set cells(rt, n_cells), edges(rt, n_edges);
    const pl::Map e2c(edges, cells, 2, edge_cells), e2o(edges, cells, 1, edge_other);
    const pl::Dat<double> w(edges, weights);
    const pl::Dat<std::int32_t> c(edges, counts);
    pl::Dat<double> r(cells), lo(cells, std::vector<double>(n_cells, 10.0)), hi(cells, std::vector<double>(n_cells, -10.0));
    pl::Dat<double> o(cells);
    pl::Dat<std::int32_t> s(cells);
    pl::par_loop(flux, edges, how..., range, w(pl::READ), c(pl::READ), r(pl::INC, e2c), s(pl::INC, e2c),
                 lo(pl::MIN, e2c, 0), hi(pl::MAX, e2c, 1), o(pl::INC, e2o, 0));
    return result{values(r), values(lo), values(hi), values(o), values(s)};
  };
  const auto same = [](const result& got, const result& want) {
    CHECK(got.s == want.s);
    CHECK(got.lo == want.lo);
    CHECK(got.hi == want.hi);
    // Sums of doubles in another order than the host's: to rounding.
    for (std::size_t i = 0; i < want.r.size(); ++i) REQUIRE(got.r[i] == Approx(want.r[i]).margin(1e-12));
    for (std::size_t i = 0; i < want.o.size(); ++i) REQUIRE(got.o[i] == Approx(want.o[i]).margin(1e-12));
  };
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const std::vector<pl::strategy> strategies = {pl::split_n_across_workgroups{64}, pl::grid_stride{128, 2},
                                                pl::chunked{16, 8}, pl::vectors_across_workgroups{64, 2}};
  for (const pl::range range : {pl::range{0, n_edges}, pl::range{1000, 2500}, pl::range{40, 40}}) {
    const result want = run(host, range);
    for (const pl::strategy& s : strategies) {
      INFO(pl::to_string(s) << " over [" << range.start << ", " << range.end << ") on " << device.device_name());
      const result got = run(device, range, s, pl::conflicts::colors);
      same(got, want);
      // No atomics: each target's sum in the same order every time, to the bit.
      const result again = run(device, range, pl::conflicts::colors, s);
      CHECK(again.r == got.r);
      CHECK(again.o == got.o);
    }
  }

  SECTION("as a runtime's default, set or from PARLOOP_CONFLICTS") {
    const result want = run(host, pl::range{0, n_edges});
    const std::size_t before = flux.cache().launchers();
    pl::Runtime rt = parloop_test::device_runtime();
    CHECK(rt.default_conflicts() == pl::conflicts::atomics);
    rt.set_default_conflicts(pl::conflicts::colors);
    same(run(rt, pl::range{0, n_edges}), want);
    {
      const parloop_test::scoped_env colors("PARLOOP_CONFLICTS", "colors");
      const pl::Runtime from_env = parloop_test::device_runtime();
      CHECK(from_env.default_conflicts() == pl::conflicts::colors);
      same(run(from_env, pl::range{0, n_edges}), want);
      // A coloured kernel on each of the two runtimes (kept while the runtime is open).
      CHECK(flux.cache().launchers() == before + 2);
    }
    const parloop_test::scoped_env bad("PARLOOP_CONFLICTS", "sometimes");
    CHECK_THROWS_WITH(parloop_test::device_runtime(), Catch::Contains("PARLOOP_CONFLICTS is 'sometimes'"));
    CHECK_THROWS_WITH(pl::Runtime::open(pl::backend_kind::host), Catch::Contains("use atomics"));
  }
}
