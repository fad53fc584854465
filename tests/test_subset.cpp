// SPDX-License-Identifier: MIT
// Subsets as data: construction, subsets of subsets, set algebra, and their elements in the
// loops' numbering of a renumbered superset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include <parloop/core/subset.hpp>
#include <parloop/parloop.hpp>

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
