// SPDX-License-Identifier: MIT
// Subsets: construction, subsets of subsets, set algebra, their elements in the loops' numbering
// of a renumbered superset, and loops over them -- direct, through maps, reducing -- on the host
// and on the backend PARLOOP_TEST_BACKEND names, against values computed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <parloop/core/subset.hpp>
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "random_mesh.hpp"

namespace pl = parloop;
using Catch::Matchers::Contains;

namespace {
std::vector<pl::index_t> listed(const pl::Subset& s) { return {s.indices().begin(), s.indices().end()}; }
}  // namespace

TEST_CASE("a subset's indices are sorted, without duplicates, checked against its set", "[subset]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 10, "cells");

  const pl::Subset s(cells, {7, 2, 9, 2, 0, 7}, "wall");
  CHECK(listed(s) == std::vector<pl::index_t>{0, 2, 7, 9});
  CHECK(s.size() == 4);
  CHECK(s.name() == "wall");
  CHECK(s.superset() == cells);
  CHECK_FALSE(s.empty());
  CHECK(s.owned() == 4);

  const pl::Subset none(cells, std::vector<pl::index_t>{});
  CHECK(none.empty());
  CHECK(none.size() == 0);
  CHECK(none.name().rfind("subset#", 0) == 0);

  CHECK_THROWS_WITH(pl::Subset(cells, {3, 10}, "far"),
                    Contains("subset 'far': index 10 (entry 1) is outside set 'cells' of size 10"));
  CHECK_THROWS_AS(pl::Subset(cells, {-1}), pl::data_error);

  pl::Subset moved = s;
  const pl::Subset taken = std::move(moved);
  CHECK(taken.size() == 4);
  CHECK_THROWS_WITH(moved.size(), Contains("a Subset that was moved from is used"));
}

TEST_CASE("a subset of a subset picks the parent's elements and refers to the original set", "[subset]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set nodes(rt, 20, "nodes");
  const pl::Subset evens(nodes, {0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, "evens");

  // Positions 1, 3 and 8 of evens: its elements 2, 6 and 16.
  const pl::Subset some(evens, {8, 1, 3, 1}, "some");
  CHECK(listed(some) == std::vector<pl::index_t>{2, 6, 16});
  CHECK(some.superset() == nodes);

  const pl::Subset deeper(some, {2});
  CHECK(listed(deeper) == std::vector<pl::index_t>{16});
  CHECK(deeper.superset() == nodes);

  CHECK_THROWS_WITH(pl::Subset(evens, {0, 10}, "past"),
                    Contains("a subset of subset 'evens': position 10 (entry 1) is outside it, of size 10"));
}

TEST_CASE("subsets of one set combine by union, intersection, difference and symmetric difference", "[subset]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 8, "cells");
  const pl::Subset a(cells, {0, 1, 2, 5}, "a");
  const pl::Subset b(cells, {2, 3, 5, 7}, "b");
  const pl::Subset empty(cells, std::vector<pl::index_t>{}, "empty");

  CHECK(listed(a | b) == std::vector<pl::index_t>{0, 1, 2, 3, 5, 7});
  CHECK(listed(a & b) == std::vector<pl::index_t>{2, 5});
  CHECK(listed(a - b) == std::vector<pl::index_t>{0, 1});
  CHECK(listed(b - a) == std::vector<pl::index_t>{3, 7});
  CHECK(listed(a ^ b) == std::vector<pl::index_t>{0, 1, 3, 7});
  CHECK((a | b).superset() == cells);
  CHECK((a & b).name() == "(a & b)");

  CHECK(listed(a | empty) == listed(a));
  CHECK((a & empty).empty());
  CHECK(listed(a - empty) == listed(a));

  // The set itself stands for all its elements: the complement, and the identities PyOP2 gives.
  CHECK(listed(cells - a) == std::vector<pl::index_t>{3, 4, 6, 7});
  CHECK(listed(a ^ cells) == std::vector<pl::index_t>{3, 4, 6, 7});
  CHECK(listed(a & cells) == listed(a));
  CHECK(listed(cells | a) == std::vector<pl::index_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK((a - cells).empty());
  // A subset and its complement make the whole set and share nothing.
  const pl::Subset rest = cells - a;
  CHECK((a | rest).size() == cells.size());
  CHECK((a & rest).empty());

  const pl::Set other(rt, 8, "other");
  const pl::Subset c(other, {1}, "c");
  CHECK_THROWS_WITH(a | c, Contains("subset 'a' | subset 'c': subsets of different sets ('cells' and 'other')"));
  CHECK_THROWS_AS(a & other, pl::argument_error);
}

TEST_CASE("a subset keeps the user's numbering, and its loop elements follow the superset's renumbering",
          "[subset][renumber]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const int cells = 300, edges = 700;
  const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges");
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const pl::Map ecell(edge, cell, 2, e2c, "ecell");

  std::vector<pl::index_t> chosen;
  for (pl::index_t c = 0; c < cells; c += 7) chosen.push_back(c);
  const pl::Subset before(cell, chosen, "before");
  CHECK(std::vector<pl::index_t>(before.state().loop_elements().begin(), before.state().loop_elements().end()) ==
        chosen);

  pl::renumber(cell);
  REQUIRE(cell.renumbered());
  const pl::Subset after(cell, chosen, "after");
  for (const pl::Subset* s : {&before, &after}) {
    CHECK(listed(*s) == chosen);
    const std::span<const pl::index_t> elements = s->state().loop_elements();
    REQUIRE(elements.size() == chosen.size());
    CHECK(std::is_sorted(elements.begin(), elements.end()));
    // Each loop element is one of the chosen cells in the user's numbering, and none twice.
    std::vector<pl::index_t> users;
    for (const pl::index_t e : elements) users.push_back(cell.user_number(e));
    std::sort(users.begin(), users.end());
    CHECK(users == chosen);
  }
  // Renumbered again, the elements follow again.
  pl::renumber(cell);
  std::vector<pl::index_t> users;
  for (const pl::index_t e : before.state().loop_elements()) users.push_back(cell.user_number(e));
  std::sort(users.begin(), users.end());
  CHECK(users == chosen);
}

namespace {
std::array<pl::backend_kind, 2> subset_backends() { return {pl::backend_kind::host, parloop_test::device_backend()}; }

// Integers, so that sums in any order are exact.
std::vector<double> whole_numbers(std::size_t n, int modulus) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<double>(parloop_test::rng()() % static_cast<unsigned>(modulus));
  return v;
}

std::vector<pl::index_t> random_half(int n) {
  std::vector<pl::index_t> out;
  for (pl::index_t i = 0; i < n; ++i) {
    if (parloop_test::rng()() % 2 == 0) out.push_back(i);
  }
  return out;
}

template <class T, int D>
std::vector<T> values_of(const pl::Dat<T, D>& d) {
  return {d.host().begin(), d.host().end()};
}
}  // namespace

TEST_CASE("a direct loop over a subset writes its elements only", "[subset][loops]") {
  const int n = 3001;
  const std::vector<double> y0 = whole_numbers(n, 1000);
  const std::vector<pl::index_t> chosen = random_half(n);
  for (const pl::backend_kind b : subset_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cells(rt, n, "cells");
    const pl::Subset some(cells, chosen, "some");
    const pl::Dat<double> y(cells, y0, "y");
    pl::Dat<double> x(cells, std::vector<double>(n, -1.0), "x");
    pl::Dat<double, 2> z(cells, std::vector<double>(2 * std::size_t(n), 5.0), "z");
    const auto k = pl::kernel("subset_direct", [](auto y, auto x, auto z) {
      x = y * 2.0 + 1.0;
      z[0] += y;
      z[1] = z[1] * y;
    });
    pl::par_loop(k, some, y(pl::READ), x(pl::WRITE), z(pl::RW));
    std::vector<double> want_x(n, -1.0), want_z(2 * std::size_t(n), 5.0);
    for (const pl::index_t e : chosen) {
      want_x[std::size_t(e)] = y0[std::size_t(e)] * 2.0 + 1.0;
      want_z[2 * std::size_t(e)] = 5.0 + y0[std::size_t(e)];
      want_z[2 * std::size_t(e) + 1] = 5.0 * y0[std::size_t(e)];
    }
    CHECK(values_of(x) == want_x);
    CHECK(values_of(z) == want_z);
    // Consecutive elements: the loop over their range.
    pl::par_loop(k, pl::Subset(cells, {5, 6, 7, 8}), y(pl::READ), x(pl::WRITE), z(pl::RW));
    for (std::size_t e = 5; e <= 8; ++e) want_x[e] = y0[e] * 2.0 + 1.0;
    CHECK(values_of(x) == want_x);
  }
}

TEST_CASE("an indirect loop over a subset reads and increments through maps at its elements", "[subset][loops]") {
  const int cells = 1500, edges = 4000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const std::vector<double> w0 = whole_numbers(edges, 100), c0 = whole_numbers(cells, 100);
  const std::vector<pl::index_t> chosen = random_half(edges);
  for (const pl::backend_kind b : subset_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges");
    const pl::Map ecell(edge, cell, 2, e2c, "ecell");
    const pl::Subset some(edge, chosen, "some");
    const pl::Subset rest = edge - some;
    const pl::Dat<double> w(edge, w0, "w"), c(cell, c0, "c");
    pl::Dat<double> gathered(edge, std::vector<double>(edges, -1.0), "gathered");
    pl::Dat<double> acc(cell, "acc"), whole(cell, "whole");

    // Gather: each chosen edge the sum of its cells' values.
    const auto gather = pl::kernel("subset_gather", [](auto c0, auto c1, auto g) { g = c0 + c1; });
    pl::par_loop(gather, some, c(pl::READ, ecell, 0), c(pl::READ, ecell, 1), gathered(pl::WRITE));
    std::vector<double> want_gathered(edges, -1.0);
    for (const pl::index_t e : chosen) {
      want_gathered[std::size_t(e)] =
          c0[std::size_t(e2c[2 * std::size_t(e)])] + c0[std::size_t(e2c[2 * std::size_t(e) + 1])];
    }
    CHECK(values_of(gathered) == want_gathered);

    // Scatter: the chosen edges' weights into their cells, the first cell twice as much.
    const auto scatter = pl::kernel("subset_scatter", [](auto w, auto a) {
      a[0] += 2.0 * w;
      a[1] += w;
    });
    pl::par_loop(scatter, some, w(pl::READ), acc(pl::INC, ecell));
    std::vector<double> want(cells, 0.0);
    for (const pl::index_t e : chosen) {
      want[std::size_t(e2c[2 * std::size_t(e)])] += 2.0 * w0[std::size_t(e)];
      want[std::size_t(e2c[2 * std::size_t(e) + 1])] += w0[std::size_t(e)];
    }
    CHECK(values_of(acc) == want);

    // A subset and its complement together: the whole set's loop.
    pl::par_loop(scatter, rest, w(pl::READ), acc(pl::INC, ecell));
    pl::par_loop(scatter, edge, w(pl::READ), whole(pl::INC, ecell));
    CHECK(values_of(acc) == values_of(whole));
    // A run of consecutive edges is the range of them: the same answer as listed.
    std::vector<pl::index_t> run;
    for (pl::index_t e = 1000; e < 2500; ++e) run.push_back(e);
    pl::Dat<double> by_run(cell, "by_run");
    pl::par_loop(scatter, pl::Subset(edge, run, "run"), w(pl::READ), by_run(pl::INC, ecell));
    std::vector<double> want_run(cells, 0.0);
    for (const pl::index_t e : run) {
      want_run[std::size_t(e2c[2 * std::size_t(e)])] += 2.0 * w0[std::size_t(e)];
      want_run[std::size_t(e2c[2 * std::size_t(e) + 1])] += w0[std::size_t(e)];
    }
    CHECK(values_of(by_run) == want_run);
    // Atomics named: a loop over a subset is coloured all the same, with the same answer.
    pl::Dat<double> again(cell, "again");
    pl::par_loop(scatter, some, pl::conflicts::atomics, w(pl::READ), again(pl::INC, ecell));
    CHECK(values_of(again) == want);
  }
}

TEST_CASE("a subset of consecutive elements runs by every subset's rules: named in errors, coloured, never timed",
          "[subset][loops]") {
  const int cells = 1500, edges = 4000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const std::vector<double> w0 = whole_numbers(edges, 100);
  const std::vector<pl::index_t> chosen = random_half(edges);
  std::vector<pl::index_t> run;
  for (pl::index_t e = 700; e < 3100; ++e) run.push_back(e);
  for (const pl::backend_kind b : {pl::backend_kind::threads, parloop_test::device_backend()}) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges");
    const pl::Map ecell(edge, cell, 2, e2c, "ecell");
    const pl::Dat<double> w(edge, w0, "w");
    pl::Dat<double> listed(cell, "listed"), consecutive(cell, "consecutive");
    const pl::Subset some(edge, chosen, "some"), together(edge, run, "together");
    const auto scatter = pl::kernel("consecutive_scatter", [](auto w, auto a) {
      a[0] += w;
      a[1] -= 3.0 * w;
    });
    pl::par_loop(scatter, some, w(pl::READ), listed(pl::INC, ecell));
    // Atomics and timing asked for: a subset is coloured and runs the runtime's launch, whether
    // its elements are listed or consecutive -- one kernel, nothing timed.
    pl::par_loop(scatter, together, pl::conflicts::atomics, w(pl::READ), consecutive(pl::INC, ecell));
    pl::par_loop(scatter, together, pl::autotune{}, w(pl::READ), consecutive(pl::INC, ecell));
    pl::par_loop(scatter, some, pl::autotune{}, w(pl::READ), listed(pl::INC, ecell));
    CHECK(scatter.cache().tunings() == 0);
    if (!pl::runs_lambdas(b)) CHECK(scatter.cache().launchers() == 1);
    std::vector<double> want(cells, 0.0);
    for (const pl::index_t e : run) {
      want[std::size_t(e2c[2 * std::size_t(e)])] += 2.0 * w0[std::size_t(e)];
      want[std::size_t(e2c[2 * std::size_t(e) + 1])] -= 6.0 * w0[std::size_t(e)];
    }
    CHECK(values_of(consecutive) == want);
    // Its errors name it, as a listed subset's do.
    const pl::Dat<double> on_cells(cell, "on_cells");
    const auto copy = pl::kernel("consecutive_copy", [](auto x, auto y) { y = x; });
    CHECK_THROWS_WITH(pl::par_loop(copy, together, on_cells(pl::READ), consecutive(pl::WRITE, ecell, 0)),
                      Contains("par_loop 'consecutive_copy' over subset 'together' of 'edges', argument 0: dat "
                               "'on_cells' is on set 'cells', not on the iteration set"));
  }
}

TEST_CASE("reductions over a subset, an empty subset and a subset of a subset", "[subset][loops]") {
  const int n = 2500;
  const std::vector<double> x0 = whole_numbers(n, 1 << 20);
  const std::vector<pl::index_t> chosen = random_half(n);
  for (const pl::backend_kind b : subset_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cells(rt, n, "cells");
    const pl::Dat<double> x(cells, x0, "x");
    const auto reduce = pl::kernel("subset_reduce", [](auto x, auto total, auto lo, auto hi, auto count) {
      total += x;
      lo = pl::min(lo, x);
      hi = pl::max(hi, x);
      count += 1;
    });
    const auto reduced = [&](const pl::Subset& s) {
      pl::Global<double> total(rt, 7.0), lo(rt, 1e30), hi(rt, -1e30);
      pl::Global<std::int32_t> count(rt, 0);
      pl::par_loop(reduce, s, x(pl::READ), total(pl::INC), lo(pl::MIN), hi(pl::MAX), count(pl::INC));
      return std::array<double, 4>{total.value(), lo.value(), hi.value(), static_cast<double>(count.value())};
    };
    const auto expected = [&](std::span<const pl::index_t> elements) {
      std::array<double, 4> want{7.0, 1e30, -1e30, static_cast<double>(elements.size())};
      for (const pl::index_t e : elements) {
        want[0] += x0[std::size_t(e)];
        want[1] = std::min(want[1], x0[std::size_t(e)]);
        want[2] = std::max(want[2], x0[std::size_t(e)]);
      }
      return want;
    };
    const pl::Subset some(cells, chosen, "some");
    CHECK(reduced(some) == expected(chosen));
    // Nothing to run: every global keeps its value.
    const pl::Subset none(cells, std::vector<pl::index_t>{}, "none");
    CHECK(reduced(none) == std::array<double, 4>{7.0, 1e30, -1e30, 0.0});
    // Every third element of `some`.
    std::vector<pl::index_t> positions;
    for (pl::index_t p = 0; p < some.size(); p += 3) positions.push_back(p);
    const pl::Subset thirds(some, positions, "thirds");
    CHECK(reduced(thirds) == expected(thirds.indices()));
  }
}

TEST_CASE("a loop over a subset of a renumbered set answers in the user's numbering", "[subset][loops][renumber]") {
  const int cells = 1200, edges = 3000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const std::vector<double> w0 = whole_numbers(edges, 100);
  const std::vector<pl::index_t> chosen = random_half(edges);
  std::vector<double> want(cells, 0.0), want_marks(edges, 0.0);
  for (const pl::index_t e : chosen) {
    want[std::size_t(e2c[2 * std::size_t(e)])] += w0[std::size_t(e)];
    want[std::size_t(e2c[2 * std::size_t(e) + 1])] -= w0[std::size_t(e)];
    want_marks[std::size_t(e)] = w0[std::size_t(e)] + 1.0;
  }
  for (const pl::backend_kind b : subset_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cell(rt, cells, "cells"), edge(rt, edges, "edges");
    const pl::Map ecell(edge, cell, 2, e2c, "ecell");
    const pl::Dat<double> w(edge, w0, "w");
    pl::Dat<double> acc(cell, "acc"), marks(edge, "marks");
    const pl::Subset some(edge, chosen, "some");
    const auto flux = pl::kernel("subset_flux", [](auto w, auto a, auto m) {
      a[0] += w;
      a[1] -= w;
      m = w + 1.0;
    });
    pl::par_loop(flux, some, w(pl::READ), acc(pl::INC, ecell), marks(pl::WRITE));
    pl::renumber(cell);
    pl::par_loop(flux, some, w(pl::READ), acc(pl::INC, ecell), marks(pl::WRITE));
    std::vector<double> twice(want);
    for (double& v : twice) v *= 2.0;
    CHECK(values_of(acc) == twice);
    CHECK(values_of(marks) == want_marks);
  }
}

TEST_CASE("a WRITE through a map over a subset runs the subset's elements that meet one at a time", "[subset][loops]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cell(rt, 4, "cells"), edge(rt, 4, "edges");
  // Edges 0 and 2 both reach cell 1.
  const pl::Map ecell(edge, cell, 1, {1, 0, 1, 3}, "ecell");
  pl::Dat<double> c(cell, "c");
  const auto put = pl::kernel("subset_put", [](auto c) { c = 1.0; });
  pl::par_loop(put, pl::Subset(edge, {0, 1, 3}), c(pl::WRITE, ecell, 0));
  CHECK(values_of(c) == std::vector<double>{1.0, 1.0, 0.0, 1.0});
  const auto add = pl::kernel("subset_add", [](auto c) { c = c + 2.0; });
  pl::par_loop(add, pl::Subset(edge, {2, 3, 0}, "meeting"), c(pl::RW, ecell, 0));
  CHECK(values_of(c) == std::vector<double>{1.0, 5.0, 0.0, 3.0});
  // A dat of another set, named with the subset.
  const pl::Dat<double> on_cells(cell, "on_cells");
  const auto read = pl::kernel("subset_read", [](auto x, auto c) { c = x; });
  CHECK_THROWS_WITH(pl::par_loop(read, pl::Subset(edge, {1, 3}, "one"), on_cells(pl::READ), c(pl::WRITE, ecell, 0)),
                    Contains("par_loop 'subset_read' over subset 'one' of 'edges', argument 0: dat 'on_cells' is on "
                             "set 'cells', not on the iteration set"));
}

TEST_CASE("a dat copied into another on the whole set, or at a subset's elements only", "[subset][loops]") {
  const int n = 777;
  const std::vector<double> a0 = whole_numbers(3 * std::size_t(n), 1000);
  const std::vector<pl::index_t> chosen = random_half(n);
  for (const pl::backend_kind b : subset_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set cells(rt, n, "cells");
    const pl::Dat<double, 3> a(cells, a0, "a");
    pl::Dat<double, 3> part(cells, std::vector<double>(3 * std::size_t(n), -2.0), "part"), all(cells, "all");
    pl::copy(a, part, pl::Subset(cells, chosen, "some"));
    std::vector<double> want(3 * std::size_t(n), -2.0);
    for (const pl::index_t e : chosen) {
      for (std::size_t k = 0; k < 3; ++k) want[3 * std::size_t(e) + k] = a0[3 * std::size_t(e) + k];
    }
    CHECK(values_of(part) == want);
    pl::copy(a, all);
    CHECK(values_of(all) == a0);
    pl::copy(all, all);
    CHECK(values_of(all) == a0);

    const pl::Dat<std::int32_t> i(cells, std::vector<std::int32_t>(std::size_t(n), 9), "i");
    pl::Dat<std::int32_t> j(cells, "j");
    pl::copy(i, j, pl::Subset(cells, {0, 5}));
    CHECK(j.host()[0] == 9);
    CHECK(j.host()[1] == 0);
    CHECK(j.host()[5] == 9);

    const pl::Set other(rt, n, "other");
    pl::Dat<double, 3> elsewhere(other, "elsewhere");
    CHECK_THROWS_WITH(pl::copy(a, elsewhere),
                      Contains("pl::copy: dat 'a' is on set 'cells' and dat 'elsewhere' on set 'other'"));
    CHECK_THROWS_WITH(
        pl::copy(a, part, pl::Subset(other, {1}, "there")),
        Contains("pl::copy: subset 'there' is of set 'other', and dats 'a' and 'part' are on set 'cells'"));
  }
}
