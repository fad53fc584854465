// SPDX-License-Identifier: MIT
// Loops run a colour at a time (pl::conflicts::colors) or with OP2's two-level plan
// (pl::conflicts::blocks): the colouring (every element once, no two of a colour meeting at a
// target, more than 32 colours too), the plan (blocks and elements within them coloured, the
// staging places), the generated code (plain stores, elements from the order or the plan),
// and loops that combine through maps on the device under test against the host backend,
// with every strategy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <parloop/codegen/generate.hpp>
#include <parloop/codegen/kernel_source.hpp>
#include <parloop/exec/loop/colors.hpp>
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_coloring {

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
    const auto first = c.offsets[static_cast<std::size_t>(colour)],
               last = c.offsets[static_cast<std::size_t>(colour) + 1];
    REQUIRE(first < last);  // no empty colour
    std::set<std::pair<int, pl::index_t>> reached;
    for (auto p = first; p < last; ++p) {
      const pl::index_t e = c.order[static_cast<std::size_t>(p)];
      if (p > first) REQUIRE(c.order[static_cast<std::size_t>(p) - 1] < e);
      // An element may reach one target twice itself; only other elements of its colour may not.
      std::set<std::pair<int, pl::index_t>> mine;
      for (const auto& t : through) {
        for (int j = t.first_slot; j <= t.last_slot; ++j) {
          mine.insert({t.space, t.values[static_cast<std::size_t>(e) * static_cast<std::size_t>(t.arity) +
                                         static_cast<std::size_t>(j)]});
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
      {{edges, 2, 0, 0, 0, targets}},                                // one slot
      {{edges, 2, 0, 1, 0, targets}},                                // both slots (a whole map)
      {{edges, 2, 0, 0, 0, targets}, {edges, 2, 1, 1, 0, targets}},  // slot by slot, one space
      {{edges, 2, 0, 1, 0, targets}, {other, 3, 0, 2, 0, targets}},  // two maps to one set
      {{edges, 2, 1, 1, 0, targets}, {elsewhere, 1, 0, 0, 1, 50}},   // two target sets
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

TEST_CASE("a colouring is first fit in element order, however many elements meet at one target", "[coloring]") {
  // Half the elements reach target 0 besides a random one: over a thousand colours, the first
  // passes of 32 and then first fit with a bitset per target. Each element's colour must be the
  // lowest that no element before it with a target in common took.
  const int n = 3000, targets = 500;
  std::vector<pl::index_t> map = random_map(n, targets, 2);
  for (int e = 0; e < n; e += 2) map[static_cast<std::size_t>(2 * e)] = 0;
  const std::vector<std::size_t> sizes{static_cast<std::size_t>(targets)};
  std::vector<pl::index_t> counts;
  const std::vector<int> colors = pl::detail::greedy_colors(
      n, sizes,
      [&](std::size_t e, auto&& visit) {
        visit(0, static_cast<std::size_t>(map[2 * e]));
        visit(0, static_cast<std::size_t>(map[2 * e + 1]));
      },
      counts);
  std::vector<std::set<int>> taken(targets);
  std::vector<pl::index_t> expected_counts;
  for (std::size_t e = 0; e < static_cast<std::size_t>(n); ++e) {
    const auto a = static_cast<std::size_t>(map[2 * e]), b = static_cast<std::size_t>(map[2 * e + 1]);
    int c = 0;
    while (taken[a].count(c) != 0 || taken[b].count(c) != 0) ++c;
    taken[a].insert(c);
    taken[b].insert(c);
    INFO("element " << e);
    REQUIRE(colors[e] == c);
    if (expected_counts.size() <= static_cast<std::size_t>(c))
      expected_counts.resize(static_cast<std::size_t>(c) + 1, 0);
    ++expected_counts[static_cast<std::size_t>(c)];
  }
  CHECK(expected_counts.size() > 1000);
  CHECK(counts == expected_counts);
}

TEST_CASE(
    "a two-level plan: blocks of a colour, and elements of a colour within a block, never meet; staging "
    "places lead to the targets",
    "[coloring][plan]") {
  namespace d = pl::detail;
  pl::transfer_stats transfers;
  const int n = 3000, targets = 400, block = 64;
  const std::vector<pl::index_t> edges = random_map(n, targets, 2), other = random_map(n, 70, 3);
  // Slots 0 and 1 of `edges` into one dat (one group, both slots), slot 2 of `other` into another.
  const std::vector<d::combined_targets> through{
      {edges, 2, 0, 0, 0, targets}, {edges, 2, 1, 1, 0, targets}, {other, 3, 2, 2, 1, 70}};
  const std::vector<d::staged_group> groups{{edges, 2, targets, 0b11}, {other, 3, 70, 0b100}};
  for (const auto& [start, end] : {std::pair{0, n}, std::pair{100, 2345}, std::pair{5, 6}, std::pair{9, 9}}) {
    INFO("range [" << start << ", " << end << ")");
    const auto plan = d::plan_blocks("test", start, end, block, through, groups, transfers);
    const std::vector<std::int32_t>& p = plan->ints;
    const int blocks = (end - start + block - 1) / block;
    REQUIRE(plan->offsets.back() == blocks);
    REQUIRE(p[d::plan_start] == start);
    const int stride = p[d::plan_info_stride];
    const auto info = [&](int b, int field) {
      return p[static_cast<std::size_t>(p[d::plan_block_info] + b * stride + field)];
    };
    std::vector<int> seen(static_cast<std::size_t>(blocks), 0);
    for (int colour = 0; colour < plan->colors(); ++colour) {
      std::set<std::pair<int, pl::index_t>> reached_by_colour;
      for (auto pos = plan->offsets[static_cast<std::size_t>(colour)];
           pos < plan->offsets[static_cast<std::size_t>(colour) + 1]; ++pos) {
        const int b = p[static_cast<std::size_t>(p[d::plan_block_order] + pos)];
        ++seen[static_cast<std::size_t>(b)];
        const int first = info(b, d::info_first), count = info(b, d::info_count);
        REQUIRE(first == start + b * block);
        REQUIRE(count == std::min(block, end - first));
        std::set<std::pair<int, pl::index_t>> of_block;
        std::vector<std::set<std::pair<int, pl::index_t>>> by_thread_colour(
            static_cast<std::size_t>(info(b, d::info_colors)));
        for (int e = first; e < first + count; ++e) {
          const int tc = p[static_cast<std::size_t>(p[d::plan_thread_color] + (e - start))];
          REQUIRE((tc >= 0 && tc < info(b, d::info_colors)));
          std::set<std::pair<int, pl::index_t>> mine;
          d::for_each_target(through, e, [&](std::size_t space, std::size_t t) {
            mine.insert({static_cast<int>(space), static_cast<pl::index_t>(t)});
          });
          for (const auto& t : mine) {
            REQUIRE(by_thread_colour[static_cast<std::size_t>(tc)].insert(t).second);
            of_block.insert(t);
          }
          // Each used slot's staging place holds its target.
          for (std::size_t g = 0; g < groups.size(); ++g) {
            for (int j = 0; j < groups[g].arity; ++j) {
              if (((groups[g].slots >> j) & 1u) == 0) continue;
              const int place = p[static_cast<std::size_t>(p[d::plan_local(static_cast<int>(g))] +
                                                           (e - start) * groups[g].arity + j)];
              REQUIRE((place >= 0 && place < info(b, d::info_targets_count(static_cast<int>(g)))));
              const int target =
                  p[static_cast<std::size_t>(p[d::plan_targets(static_cast<int>(g))] +
                                             info(b, d::info_targets_start(static_cast<int>(g))) + place)];
              REQUIRE(target ==
                      groups[g].values[static_cast<std::size_t>(e) * static_cast<std::size_t>(groups[g].arity) +
                                       static_cast<std::size_t>(j)]);
            }
          }
        }
        for (const auto& t : of_block) REQUIRE(reached_by_colour.insert(t).second);
      }
    }
    for (const int s : seen) REQUIRE(s == 1);
  }
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
    const auto plain = pl::codegen::make_source(*ir, dialect, pl::split_n_across_workgroups{}, {});
    const auto colored =
        pl::codegen::make_source(*ir, dialect, pl::split_n_across_workgroups{}, {.writes = pl::conflicts::colors});
    CHECK_THAT(plain.code.text, Catch::Contains("pl_atomic_add"));
    CHECK_THAT(colored.code.text, !Catch::Contains("pl_atomic_add") && Catch::Contains("pl_e = pl_order[pl_p]"));
    CHECK(colored.layout.back().role == pl::ir::buffer_role::order);
    // A coloured loop's elements are not side by side: no vectors.
    const auto vectors =
        pl::codegen::make_source(*ir, dialect, pl::vectors_across_workgroups{}, {.writes = pl::conflicts::colors});
    CHECK_THAT(vectors.code.text, !Catch::Contains("pl_vec"));
    // A two-level plan stages in local memory, a block of 128 work-items, each adding 2 slots.
    const auto blocks =
        pl::codegen::make_source(*ir, dialect, pl::grid_stride{128, 4}, {.writes = pl::conflicts::blocks});
    CHECK_THAT(blocks.code.text,
               !Catch::Contains("pl_atomic_add") && Catch::Contains("pl_stage0[256]") && Catch::Contains("pl_plan"));
    CHECK(blocks.block == 128);
    CHECK(blocks.grid(10, 25, {}) == 15);  // a work-group per block of the colour
    CHECK(blocks.layout.back().role == pl::ir::buffer_role::plan);
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
    pl::Dat<double> r(cells), lo(cells, std::vector<double>(n_cells, 10.0)),
        hi(cells, std::vector<double>(n_cells, -10.0));
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
      for (const pl::conflicts c : {pl::conflicts::colors, pl::conflicts::blocks}) {
        INFO(pl::to_string(c));
        const result got = run(device, range, s, c);
        same(got, want);
        // No atomics: each target's sum in the same order every time, to the bit.
        const result again = run(device, range, c, s);
        CHECK(again.r == got.r);
        CHECK(again.o == got.o);
      }
    }
  }

  SECTION("as a runtime's default, set or from PARLOOP_CONFLICTS") {
    const result want = run(host, pl::range{0, n_edges});
    const std::size_t before = flux.cache().launchers();
    const parloop_test::scoped_env unset("PARLOOP_CONFLICTS", "");
    pl::Runtime rt = parloop_test::device_runtime();
    // A CPU device colours by default (exec/device/device_backend.hpp), a GPU uses atomics.
    const bool cpu = pl::detail::status_of(parloop_test::device_backend()).cpu_device;
    CHECK(rt.default_conflicts() == (cpu ? pl::conflicts::colors : pl::conflicts::atomics));
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

TEST_CASE(
    "coloured and planned loops: one dat through two maps, with a global reduction; C source through a "
    "whole map",
    "[coloring][device]") {
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const pl::Runtime device = parloop_test::device_runtime();
  const int n_cells = 300, n_edges = 2500;
  const std::vector<pl::index_t> edge_cells = random_map(n_edges, n_cells, 2);
  const std::vector<pl::index_t> edge_other = random_map(n_edges, n_cells, 1);
  const std::vector<double> weights = random_values<double>(n_edges);
  // r is reached through e2c and e2o in one loop: a plan stages it as two groups, whose targets
  // meet in a block.
  const auto both = pl::kernel("two_maps", [](auto w, auto a, auto b, auto total) {
    a += w;
    b += 2.0 * w;
    total += w * w;
  });
  const auto lambda_spread = pl::kernel("spread_c", [](auto w, auto r) {
    r[0][0] += w;
    r[1][0] += 2.0 * w;
  });
  const auto c_spread = pl::kernel_from_source(
      "spread_c", "void spread_c(const double* w, double* r) { r[0] += w[0]; r[1] += 2.0 * w[0]; }");
  struct result {
    std::vector<double> r;
    double total;
    std::vector<double> spread;
  };
  const auto run = [&](const pl::Runtime& rt, pl::conflicts c) {
    const pl::Set cells(rt, n_cells), edges(rt, n_edges);
    const pl::Map e2c(edges, cells, 2, edge_cells), e2o(edges, cells, 1, edge_other);
    const pl::Dat<double> w(edges, weights);
    pl::Dat<double> r(cells), spread(cells);
    pl::Global<double> total(rt, 0.0);
    pl::par_loop(both, edges, c, w(pl::READ), r(pl::INC, e2c, 1), r(pl::INC, e2o, 0), total(pl::INC));
    if (rt.kind() == pl::backend_kind::host)
      pl::par_loop(lambda_spread, edges, w(pl::READ), spread(pl::INC, e2c));
    else
      pl::par_loop(c_spread, edges, c, w(pl::READ), spread(pl::INC, e2c));
    const auto rv = r.host();
    const auto sv = spread.host();
    return result{{rv.begin(), rv.end()}, total.value(), {sv.begin(), sv.end()}};
  };
  const result want = run(host, pl::conflicts::atomics);
  for (const pl::conflicts c : {pl::conflicts::atomics, pl::conflicts::colors, pl::conflicts::blocks}) {
    INFO(pl::to_string(c) << " on " << device.device_name());
    const result got = run(device, c);
    for (std::size_t i = 0; i < want.r.size(); ++i) REQUIRE(got.r[i] == Approx(want.r[i]).margin(1e-12));
    for (std::size_t i = 0; i < want.spread.size(); ++i) REQUIRE(got.spread[i] == Approx(want.spread[i]).margin(1e-12));
    CHECK(got.total == Approx(want.total).epsilon(1e-12));
  }
}

TEST_CASE("a loop a plan cannot hold is refused, naming it, before anything is compiled", "[coloring][device]") {
  const pl::Runtime device = parloop_test::device_runtime();
  const pl::Set from(device, 4), to(device, 100);
  std::vector<pl::index_t> wide(4 * 65);
  for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<pl::index_t>(i % 100);
  const pl::Map m(from, to, 65, wide);
  pl::Dat<double> r(to);
  const auto k = pl::kernel("too_wide", [](auto r) { r[64][0] += 1.0; });
  CHECK_THROWS_WITH(
      pl::par_loop(k, from, pl::conflicts::blocks, r(pl::INC, m)),
      Catch::Contains("par_loop 'too_wide'") && Catch::Contains("arity at most 64") && Catch::Contains("arity 65"));
  CHECK(k.cache().compiles() == 0);
  // Coloured, or with atomics, it runs.
  pl::par_loop(k, from, pl::conflicts::colors, r(pl::INC, m));
  CHECK(r.host()[64 % 100] + r.host()[(65 + 64) % 100] > 0.0);
}

TEST_CASE("loops over ever new ranges keep a bounded number of colourings, the most recently used",
          "[coloring][device]") {
  const pl::Runtime device = parloop_test::device_runtime();
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  const int n_cells = 300, n_edges = 2000, width = 100, loops = 120;
  const std::vector<pl::index_t> edge_cells = random_map(n_edges, n_cells, 2);
  const std::vector<double> weights = random_values<double>(n_edges);
  const auto spread = pl::kernel("shifting_spread", [](auto w, auto r) {
    r[0] += w;
    r[1] -= w;
  });
  const pl::range fixed{0, width};
  // Loops alternating between `fixed` and a range of their own each time (500 shifting ranges
  // once kept 500 colourings, all uploaded).
  const auto run = [&](const pl::Runtime& rt, const auto&... how) {
    const pl::Set cells(rt, n_cells), edges(rt, n_edges);
    const pl::Map e2c(edges, cells, 2, edge_cells);
    const pl::Dat<double> w(edges, weights);
    pl::Dat<double> r(cells);
    for (int i = 1; i <= loops; ++i) {
      pl::par_loop(spread, edges, how..., fixed, w(pl::READ), r(pl::INC, e2c));
      pl::par_loop(spread, edges, how..., pl::range{i, i + width}, w(pl::READ), r(pl::INC, e2c));
    }
    if (rt.kind() != pl::backend_kind::host) {
      CHECK(e2c.state().colorings->kept.size() == pl::detail::map_colorings::max_kept);
    }
    const auto h = r.host();
    return std::vector<double>(h.begin(), h.end());
  };
  const std::vector<double> want = run(host);
  for (const pl::conflicts c : {pl::conflicts::colors, pl::conflicts::blocks}) {
    INFO(pl::to_string(c));
    const std::vector<double> got = run(device, c);
    // Sums of doubles in another order than the host's: to rounding.
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-12));
  }

  // The colouring of a range used on every other loop is the one made at its first loop.
  const pl::Set cells(device, n_cells), edges(device, n_edges);
  const pl::Map e2c(edges, cells, 2, edge_cells);
  const pl::Dat<double> w(edges, weights);
  pl::Dat<double> r(cells);
  const auto colors_of = [&](pl::range range) {
    const std::array views{pl::detail::view_of(w(pl::READ)), pl::detail::view_of(r(pl::INC, e2c))};
    return pl::detail::kept_for("shifting_spread", range, 0, pl::detail::kept_kind::element_colors, views, nullptr)
        .colors;
  };
  const std::shared_ptr<pl::detail::coloring> first = colors_of(fixed), early = colors_of(pl::range{1, 1 + width});
  for (int i = 2; i <= loops; ++i) {
    CHECK(colors_of(fixed) == first);
    colors_of(pl::range{i, i + width});
  }
  CHECK(e2c.state().colorings->kept.size() == pl::detail::map_colorings::max_kept);
  // One used long ago went, and is made again (`early` holds the old one: a new address).
  const std::shared_ptr<pl::detail::coloring> again = colors_of(pl::range{1, 1 + width});
  CHECK(again != early);
  CHECK(again->order == early->order);
  CHECK(colors_of(fixed) == first);
}

}  // namespace test_coloring
