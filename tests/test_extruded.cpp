// SPDX-License-Identifier: MIT
// Extruded sets: construction and its refusals, maps made by pl::extrude, and loops over every
// layer, the bottom, the top and the interior facets -- direct, through maps from the extruded
// set and from its base, with pl::layer() and reductions -- on the host and on the backend
// PARLOOP_TEST_BACKEND names, against values computed here (in whole numbers, so that sums in any
// order are exact).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <variant>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <parloop/codegen/kernel_source.hpp>
#include <parloop/exec/device/launch_choice.hpp>
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "random_mesh.hpp"

namespace pl = parloop;

// A namespace of its own: test_units compiles the unit test files as one translation unit.
namespace extruded_test {

using Catch::Matchers::Contains;

std::array<pl::backend_kind, 2> extruded_backends() { return {pl::backend_kind::host, parloop_test::device_backend()}; }

std::vector<double> whole_numbers(std::size_t n, int modulus) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<double>(parloop_test::rng()() % static_cast<unsigned>(modulus));
  return v;
}

template <class T, int D>
std::vector<T> values_of(const pl::Dat<T, D>& d) {
  return {d.host().begin(), d.host().end()};
}

std::size_t at(pl::index_t v) { return static_cast<std::size_t>(v); }

TEST_CASE("an extruded set is its base's columns of layers, numbered column by column", "[extruded]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set base(rt, 7, "tris");
  const pl::ExtrudedSet cells(base, 5, "cells");
  CHECK(cells.size() == 35);
  CHECK(cells.columns() == 7);
  CHECK(cells.layers() == 5);
  CHECK(cells.base() == base);
  CHECK(cells.extruded());
  CHECK_FALSE(base.extruded());
  const pl::Set as_set = cells;
  CHECK(pl::ExtrudedSet(as_set).layers() == 5);

  CHECK_THROWS_WITH(pl::ExtrudedSet(base, 0, "flat"),
                    Contains("extruded set 'flat' over 'tris': 0 layers; at least 1"));
  CHECK_THROWS_WITH(pl::ExtrudedSet(cells, 2, "twice"), Contains("the base is itself extruded"));
  CHECK_THROWS_WITH(pl::ExtrudedSet(base), Contains("set 'tris' is not an extruded set"));
  const pl::Set huge(rt, 1 << 20, "huge");
  CHECK_THROWS_WITH(pl::ExtrudedSet(huge, 1 << 12, "tall"), Contains("is more than 2147483647 entities"));
  // Extruded entities are numbered after the base's elements: neither is renumbered.
  CHECK_THROWS_WITH(pl::renumber(base), Contains("set 'tris' is the base of an extruded set"));
  const pl::Set other(rt, 4, "other");
  const pl::Map self(other, other, 1, {1, 0, 3, 2}, "self");
  pl::renumber(other);
  CHECK_THROWS_WITH(pl::ExtrudedSet(other, 3, "late"), Contains("pl::renumber has reordered the base"));
}

TEST_CASE("pl::extrude makes a column's bottom targets, each level above and every layer up", "[extruded]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set tris(rt, 2, "tris"), verts(rt, 4, "verts");
  const pl::Map tv(tris, verts, 3, {0, 1, 2, 1, 3, 2}, "tv");
  const pl::ExtrudedSet cells(tris, 3, "cells"), nodes(verts, 4, "nodes");
  const pl::Map cn = pl::extrude(tv, cells, nodes, {0, 1}, "cn");
  CHECK(cn.arity() == 6);
  CHECK(cn.from() == cells);
  CHECK(cn.to() == nodes);
  // Column 1's bottom cell: vertices 1, 3, 2 at level 0, then at level 1 (4 levels per column).
  const std::vector<pl::index_t> want{0, 4, 8, 1, 5, 9, 4, 12, 8, 5, 13, 9};
  CHECK(std::vector<pl::index_t>(cn.values().begin(), cn.values().end()) == want);

  const pl::ExtrudedSet short_nodes(verts, 3, "short");
  CHECK_THROWS_WITH(pl::extrude(tv, cells, short_nodes, {0, 1}, "over"),
                    Contains("level 1 above a cell of 'cells' (3 layers) is outside the 3 layers of 'short'"));
  CHECK_THROWS_WITH(pl::extrude(tv, cells, nodes, {-1}), Contains("level -1"));
  CHECK_THROWS_WITH(pl::extrude(tv, cells, nodes, {}, "none"), Contains("pl::extrude 'none': no levels given"));
  CHECK_THROWS_WITH(pl::extrude(tv, nodes, cells, {0}), Contains("the extruded sets' bases are 'verts' and 'tris'"));
  CHECK_THROWS_WITH(pl::extrude(cells, nodes, {0}), Contains("over different bases"));
  const pl::Map own = pl::extrude(cells, cells, {0}, "own");
  CHECK(std::vector<pl::index_t>(own.values().begin(), own.values().end()) == std::vector<pl::index_t>{0, 3});
}

TEST_CASE("direct loops over an extruded set: each cell, its column's base values, pl::layer() and reductions",
          "[extruded][loops]") {
  const int columns = 257, layers = 9;
  const std::vector<double> area0 = whole_numbers(columns, 50);
  for (const pl::backend_kind b : extruded_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set tris(rt, columns, "tris");
    const pl::ExtrudedSet cells(tris, layers, "cells");
    const pl::Dat<double> area(tris, area0, "area");
    pl::Dat<double> volume(cells, "volume");
    pl::Dat<int> level(cells, std::vector<int>(std::size_t(columns) * layers, -1), "level");
    pl::Dat<int> count(tris, "count");
    pl::Global<double> total(rt, 0.0, "total");
    pl::Global<int> highest(rt, -1, "highest");

    // A cell's volume: its column's area times its layer's thickness (layer + 1).
    const auto fill = pl::kernel("extruded_fill", [](auto area, auto v, auto lev, auto n, auto t, auto h) {
      v = area * (pl::layer() + 1);
      lev = pl::layer();
      n += 1;
      t += area * (pl::layer() + 1);
      h = pl::max(h, pl::layer());
    });
    pl::par_loop(fill, cells, area(pl::READ), volume(pl::WRITE), level(pl::WRITE), count(pl::INC), total(pl::INC),
                 highest(pl::MAX));
    std::vector<double> want_volume(std::size_t(columns) * layers);
    std::vector<int> want_level(want_volume.size());
    double want_total = 0;
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (int l = 0; l < layers; ++l) {
        want_volume[c * layers + std::size_t(l)] = area0[c] * (l + 1);
        want_level[c * layers + std::size_t(l)] = l;
        want_total += area0[c] * (l + 1);
      }
    }
    CHECK(values_of(volume) == want_volume);
    CHECK(values_of(level) == want_level);
    // A direct INC of the base set's dat: once per cell of the column.
    CHECK(values_of(count) == std::vector<int>(columns, layers));
    CHECK(total.value() == want_total);
    CHECK(highest.value() == layers - 1);

    // The bottom and top cells only.
    pl::Dat<int> mark(cells, std::vector<int>(std::size_t(columns) * layers, 0), "mark");
    const auto stamp = pl::kernel("extruded_stamp", [](auto m) { m += 100 + pl::layer(); });
    pl::par_loop(stamp, cells.bottom(), mark(pl::RW));
    pl::par_loop(stamp, cells.top(), mark(pl::RW));
    std::vector<int> want_mark(std::size_t(columns) * layers, 0);
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      want_mark[c * layers] = 100;
      want_mark[c * layers + layers - 1] = 100 + layers - 1;
    }
    CHECK(values_of(mark) == want_mark);
  }
}

TEST_CASE("loops through maps from an extruded set: INC, WRITE and RW at every level, and maps from the base",
          "[extruded][loops]") {
  const int columns = 300, base_nodes = 180, layers = 7;
  const std::vector<pl::index_t> tri_nodes = parloop_test::random_map(columns, base_nodes, 3);
  const std::vector<double> weight0 = whole_numbers(std::size_t(columns) * layers, 20);
  const std::vector<double> height0 = whole_numbers(base_nodes, 30);
  for (const pl::backend_kind b : extruded_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set tris(rt, columns, "tris"), verts(rt, base_nodes, "verts");
    const pl::Map tv(tris, verts, 3, tri_nodes, "tv");
    const pl::ExtrudedSet cells(tris, layers, "cells"), nodes(verts, layers + 1, "nodes");
    const pl::ExtrudedSet faces(tris, layers + 1, "faces");
    const pl::Map cn = pl::extrude(tv, cells, nodes, {0, 1}, "cn");
    const pl::Map cf = pl::extrude(cells, faces, {0, 1}, "cf");
    const pl::Dat<double> weight(cells, weight0, "weight");
    const pl::Dat<double> height(verts, height0, "height");
    pl::Dat<double> load(nodes, "load");
    pl::Dat<double> sampled(cells, "sampled");

    // Each prism's weight to its six nodes, the top three twice as much; read through the base
    // map, each cell the sum of its vertices' heights.
    const auto spread = pl::kernel("extruded_spread", [](auto w, auto n, auto h, auto s) {
      for (int j = 0; j < 3; ++j) {
        n[j][0] += w;
        n[j + 3][0] += 2.0 * w;
      }
      s = h[0][0] + h[1][0] + h[2][0];
    });
    pl::par_loop(spread, cells, weight(pl::READ), load(pl::INC, cn), height(pl::READ, tv), sampled(pl::WRITE));
    std::vector<double> want_load(std::size_t(base_nodes) * (layers + 1), 0.0), want_sampled(weight0.size());
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (std::size_t l = 0; l < std::size_t(layers); ++l) {
        const double w = weight0[c * layers + l];
        double s = 0;
        for (std::size_t j = 0; j < 3; ++j) {
          const std::size_t v = at(tri_nodes[3 * c + j]);
          want_load[v * (layers + 1) + l] += w;
          want_load[v * (layers + 1) + l + 1] += 2.0 * w;
          s += height0[v];
        }
        want_sampled[c * layers + l] = s;
      }
    }
    CHECK(values_of(load) == want_load);
    CHECK(values_of(sampled) == want_sampled);

    // A plain map from the base into the same extruded set beside a layered one: both are
    // coloured by the columns they reach, so columns meeting through either are kept apart.
    std::vector<pl::index_t> tops(3 * std::size_t(columns));
    for (std::size_t i = 0; i < tops.size(); ++i) tops[i] = tri_nodes[i] * (layers + 1) + layers;
    const pl::Map top(tris, nodes, 3, tops, "top");
    pl::Dat<double> both(nodes, "both");
    const auto two_maps = pl::kernel("extruded_two_maps", [](auto w, auto a, auto b) {
      a += w;
      b += 2.0 * w;
    });
    pl::par_loop(two_maps, cells, pl::conflicts::colors, weight(pl::READ), both(pl::INC, top, 0), both(pl::INC, cn, 0));
    std::vector<double> want_both(want_load.size(), 0.0);
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (std::size_t l = 0; l < std::size_t(layers); ++l) {
        want_both[at(tops[3 * c])] += weight0[c * layers + l];
        want_both[at(tri_nodes[3 * c]) * (layers + 1) + l] += 2.0 * weight0[c * layers + l];
      }
    }
    CHECK(values_of(both) == want_both);

    // WRITE through a map whose columns are distinct: each column's cells in layer order, so a
    // face between two cells keeps what the upper one wrote, as on the host.
    pl::Dat<int> face_mark(faces, std::vector<int>(std::size_t(columns) * (layers + 1), -1), "face_mark");
    const auto mark = pl::kernel("extruded_faces", [](auto f) {
      f[0] = 10 * pl::layer();
      f[1] = 10 * pl::layer() + 1;
    });
    pl::par_loop(mark, cells, face_mark(pl::WRITE, cf));
    std::vector<int> want_faces(std::size_t(columns) * (layers + 1));
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (int k = 0; k < layers; ++k) want_faces[c * (layers + 1) + std::size_t(k)] = 10 * k;
      want_faces[c * (layers + 1) + layers] = 10 * (layers - 1) + 1;
    }
    CHECK(values_of(face_mark) == want_faces);
    // RW through one slot: each bottom face doubled, once per layer.
    const auto twice = pl::kernel("extruded_twice", [](auto f) { f = 2 * f + 1; });
    pl::par_loop(twice, cells, face_mark(pl::RW, cf, 0));
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (std::size_t k = 0; k < std::size_t(layers); ++k) {
        int& v = want_faces[c * (layers + 1) + k];
        v = 2 * v + 1;
      }
    }
    CHECK(values_of(face_mark) == want_faces);

    // Through the prism map, columns meet at shared vertices: a WRITE races and is refused.
    pl::Dat<double> stamped(nodes, "stamped");
    const auto write_nodes = pl::kernel("extruded_write_nodes", [](auto n) { n[0] = 1.0; });
    CHECK_THROWS_WITH(pl::par_loop(write_nodes, cells, stamped(pl::WRITE, cn, 0)),
                      Contains("through map 'cn', which sends columns"));

    // The bottom and the top only, and colours named: the same answers.
    pl::Dat<double> ends(nodes, "ends");
    const auto bottom_top = pl::kernel("extruded_ends", [](auto w, auto n) {
      for (int j = 0; j < 6; ++j) n[j][0] += w;
    });
    pl::par_loop(bottom_top, cells.bottom(), pl::conflicts::colors, weight(pl::READ), ends(pl::INC, cn));
    pl::par_loop(bottom_top, cells.top(), weight(pl::READ), ends(pl::INC, cn));
    std::vector<double> want_ends(want_load.size(), 0.0);
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (const std::size_t l : {std::size_t{0}, std::size_t(layers - 1)}) {
        for (std::size_t j = 0; j < 3; ++j) {
          const std::size_t v = at(tri_nodes[3 * c + j]);
          want_ends[v * (layers + 1) + l] += weight0[c * layers + l];
          want_ends[v * (layers + 1) + l + 1] += weight0[c * layers + l];
        }
      }
    }
    CHECK(values_of(ends) == want_ends);
  }
}

TEST_CASE("every launch strategy runs an extruded loop's columns, a base dat's values moving as vectors",
          "[extruded][loops]") {
  const int columns = 333, base_nodes = 150, layers = 5;
  const std::vector<pl::index_t> tri_nodes = parloop_test::random_map(columns, base_nodes, 3);
  const std::vector<double> area0 = whole_numbers(columns, 40),
                            weight0 = whole_numbers(std::size_t(columns) * layers, 9);
  std::vector<double> want_load(std::size_t(base_nodes) * (layers + 1), 0.0), want_mass(columns, 0.0);
  for (std::size_t c = 0; c < std::size_t(columns); ++c) {
    for (std::size_t l = 0; l < std::size_t(layers); ++l) {
      const double m = area0[c] * weight0[c * layers + l];
      want_mass[c] += m;
      for (std::size_t j = 0; j < 3; ++j) {
        const std::size_t v = at(tri_nodes[3 * c + j]);
        want_load[v * (layers + 1) + l] += m;
        want_load[v * (layers + 1) + l + 1] += m + double(l);
      }
    }
  }
  const pl::Runtime rt = pl::Runtime::open(parloop_test::device_backend());
  const pl::Set tris(rt, columns, "tris"), verts(rt, base_nodes, "verts");
  const pl::Map tv(tris, verts, 3, tri_nodes, "tv");
  const pl::ExtrudedSet cells(tris, layers, "cells"), nodes(verts, layers + 1, "nodes");
  const pl::Map cn = pl::extrude(tv, cells, nodes, {0, 1}, "cn");
  const pl::Dat<double> area(tris, area0, "area"), weight(cells, weight0, "weight");
  const auto k = pl::kernel("extruded_strategies", [](auto a, auto w, auto mass, auto n) {
    const auto m = pl::let(a * w);
    mass += m;
    for (int j = 0; j < 3; ++j) {
      n[j][0] += m;
      n[j + 3][0] += m + pl::layer();
    }
  });
  const std::array<pl::strategy, 5> strategies{pl::split_n_across_workgroups{64}, pl::grid_stride{32, 2},
                                               pl::chunked{8, 7}, pl::vectors_across_workgroups{32, 2},
                                               pl::vectors_across_workgroups{16, 4}};
  for (const pl::strategy& s : strategies) {
    INFO(pl::to_string(s));
    pl::Dat<double> mass(tris, "mass"), load(nodes, "load");
    std::visit(
        [&](const auto& named) {
          pl::par_loop(k, cells, named, area(pl::READ), weight(pl::READ), mass(pl::RW), load(pl::INC, cn));
        },
        s);
    CHECK(values_of(mass) == want_mass);
    CHECK(values_of(load) == want_load);
  }
}

TEST_CASE("a loop over interior facets sees the cell below and the cell above through each map", "[extruded][loops]") {
  const int columns = 211, layers = 6;
  const std::vector<double> t0 = whole_numbers(std::size_t(columns) * layers, 100);
  for (const pl::backend_kind b : extruded_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set tris(rt, columns, "tris");
    const pl::ExtrudedSet cells(tris, layers, "cells");
    const pl::Map own = pl::extrude(cells, cells, {0}, "own");
    const pl::Dat<double> t(cells, t0, "t");
    pl::Dat<double> flux(cells, "flux");
    pl::Dat<int> below(cells, std::vector<int>(t0.size(), -1), "below");
    pl::Global<double> jump(rt, 0.0, "jump");

    // The vertical flux through each facet: the difference of the cells on either side, taken
    // from the lower and given to the upper; the facet's layer is the lower cell's.
    const auto vertical = pl::kernel("extruded_vertical", [](auto tt, auto f, auto lo, auto g) {
      const auto d = pl::let(tt[1][0] - tt[0][0]);
      f[0] += d;
      f[1] -= d;
      lo = pl::layer();
      g += d * d;
    });
    pl::par_loop(vertical, cells.interior_facets(), t(pl::READ, own), flux(pl::INC, own), below(pl::WRITE, own, 0),
                 jump(pl::INC));
    std::vector<double> want_flux(t0.size(), 0.0);
    std::vector<int> want_below(t0.size(), -1);
    double want_jump = 0;
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (std::size_t l = 0; l + 1 < std::size_t(layers); ++l) {
        const double d = t0[c * layers + l + 1] - t0[c * layers + l];
        want_flux[c * layers + l] += d;
        want_flux[c * layers + l + 1] -= d;
        want_below[c * layers + l] = int(l);
        want_jump += d * d;
      }
    }
    CHECK(values_of(flux) == want_flux);
    CHECK(values_of(below) == want_below);
    CHECK(jump.value() == want_jump);
    // A cell per work-item, the increments atomic: the same answers.
    pl::Dat<double> by_cell(cells, "by_cell");
    pl::Global<double> jump_by_cell(rt, 0.0, "jump_by_cell");
    pl::Dat<int> below_by_cell(cells, std::vector<int>(t0.size(), -1), "below_by_cell");
    pl::par_loop(vertical, cells.interior_facets(), pl::split_n_across_workgroups{32}, pl::conflicts::atomics,
                 t(pl::READ, own), by_cell(pl::INC, own), below_by_cell(pl::WRITE, own, 0), jump_by_cell(pl::INC));
    CHECK(values_of(by_cell) == want_flux);
    CHECK(values_of(below_by_cell) == want_below);
    CHECK(jump_by_cell.value() == want_jump);

    // One slot at a time: slot 1 is the cell above.
    pl::Dat<double> above(cells, "above");
    const auto copy_above = pl::kernel("extruded_above", [](auto up, auto a) { a = up; });
    pl::par_loop(copy_above, cells.interior_facets(), t(pl::READ, own, 1), above(pl::WRITE, own, 0));
    std::vector<double> want_above(t0.size(), 0.0);
    for (std::size_t c = 0; c < std::size_t(columns); ++c) {
      for (std::size_t l = 0; l + 1 < std::size_t(layers); ++l) want_above[c * layers + l] = t0[c * layers + l + 1];
    }
    CHECK(values_of(above) == want_above);

    // A cell's own dat is two cells' at a facet: refused, naming the way.
    CHECK_THROWS_WITH(pl::par_loop(copy_above, cells.interior_facets(), t(pl::READ), above(pl::WRITE)),
                      Contains("over the interior facets of 'cells', argument 0: dat 't' is on the extruded set"));
    CHECK_THROWS_WITH(pl::par_loop(copy_above, cells.interior_facets(), t(pl::READ, own, 2), above(pl::WRITE, own, 0)),
                      Contains("slot 2 of map 'own', which has over interior facets slots 2"));
  }
}

TEST_CASE("horizontal loops over an extruded set of edges, through extruded maps to the cells beside them",
          "[extruded][loops]") {
  const int columns = 400, base_edges = 700, layers = 8;
  const std::vector<pl::index_t> edge_tris = parloop_test::random_map(base_edges, columns, 2);
  const std::vector<double> t0 = whole_numbers(std::size_t(columns) * layers, 64);
  const std::vector<double> k0 = whole_numbers(base_edges, 5);
  for (const pl::backend_kind b : extruded_backends()) {
    INFO(pl::backend_name(b));
    const pl::Runtime rt = pl::Runtime::open(b);
    const pl::Set tris(rt, columns, "tris"), edges(rt, base_edges, "edges");
    const pl::Map et(edges, tris, 2, edge_tris, "et");
    const pl::ExtrudedSet cells(tris, layers, "cells"), walls(edges, layers, "walls");
    const pl::Map wc = pl::extrude(et, walls, cells, {0}, "wc");
    const pl::Dat<double> t(cells, t0, "t");
    const pl::Dat<double> conductance(edges, k0, "conductance");
    pl::Dat<double> change(cells, "change");
    const auto horizontal = pl::kernel("extruded_horizontal", [](auto k, auto a, auto b, auto da, auto db) {
      const auto f = pl::let(k * (b - a));
      da += f;
      db -= f;
    });
    // Split and a grid with atomics run a cell per work-item (the grid's work-items striding over
    // the cells: 2 groups of 16 per compute unit are fewer than the cells); chunks and colours a column.
    const std::array<pl::strategy, 3> strategies{pl::split_n_across_workgroups{64}, pl::chunked{8, 4},
                                                 pl::grid_stride{16, 2}};
    for (const auto& [way, s] : {std::pair{pl::conflicts::atomics, 0}, std::pair{pl::conflicts::atomics, 1},
                                 std::pair{pl::conflicts::atomics, 2}, std::pair{pl::conflicts::colors, 0},
                                 std::pair{pl::conflicts::blocks, 1}}) {
      INFO(int(way) << " " << pl::to_string(strategies[std::size_t(s)]));
      pl::Dat<double> fresh(cells, "fresh");
      std::visit(
          [&](const auto& named) {
            pl::par_loop(horizontal, walls, way, named, conductance(pl::READ), t(pl::READ, wc, 0), t(pl::READ, wc, 1),
                         fresh(pl::INC, wc, 0), fresh(pl::INC, wc, 1));
          },
          strategies[std::size_t(s)]);
      std::vector<double> want(t0.size(), 0.0);
      for (std::size_t e = 0; e < std::size_t(base_edges); ++e) {
        const std::size_t a = at(edge_tris[2 * e]), c = at(edge_tris[2 * e + 1]);
        for (std::size_t l = 0; l < std::size_t(layers); ++l) {
          const double f = k0[e] * (t0[c * layers + l] - t0[a * layers + l]);
          want[a * layers + l] += f;
          want[c * layers + l] -= f;
        }
      }
      CHECK(values_of(fresh) == want);
    }
  }
}

TEST_CASE("a kernel from C source over interior facets, and an autotuned extruded loop, on a device",
          "[extruded][loops][compiled]") {
  if (!parloop_test::compiles_kernels()) return;
  const int columns = 150, layers = 4;
  const std::vector<double> t0 = whole_numbers(std::size_t(columns) * layers, 50);
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::Set tris(rt, columns, "tris");
  const pl::ExtrudedSet cells(tris, layers, "cells");
  const pl::Map own = pl::extrude(cells, cells, {0}, "own");
  const pl::Dat<double> t(cells, t0, "t");
  pl::Dat<double> q(cells, "q");
  // OP2's convention: a whole map's slots one after another, the cell below then the cell above.
  const auto source = pl::kernel_from_source(
      "facet_jump", "void facet_jump(const double* t, double* q) { q[0] += t[1] - t[0]; q[1] -= t[1] - t[0]; }");
  pl::par_loop(source, cells.interior_facets(), t(pl::READ, own), q(pl::INC, own));
  std::vector<double> want(t0.size(), 0.0);
  for (std::size_t c = 0; c < std::size_t(columns); ++c) {
    for (std::size_t l = 0; l + 1 < std::size_t(layers); ++l) {
      const double d = t0[c * layers + l + 1] - t0[c * layers + l];
      want[c * layers + l] += d;
      want[c * layers + l + 1] -= d;
    }
  }
  CHECK(values_of(q) == want);
  // Timed candidates: atomics and colours, never a two-level plan, all with the same answer.
  pl::Dat<double> tuned(cells, "tuned");
  const auto jump = pl::kernel("extruded_tuned_jump", [](auto tt, auto qq) {
    qq[0][0] += tt[1][0] - tt[0][0];
    qq[1][0] -= tt[1][0] - tt[0][0];
  });
  pl::par_loop(jump, cells.interior_facets(), pl::autotune{}, t(pl::READ, own), tuned(pl::INC, own));
  CHECK(values_of(tuned) == want);
  // Both mappings among a direct loop's candidates (no colours), on a GPU as on a CPU: a column
  // per work-item (chunks), and a cell per work-item where the device offers split or a grid.
  const auto add = pl::kernel("extruded_candidates", [](auto tt, auto qq) { qq += tt; });
  pl::ir::kernel ir = *add.traced(t(pl::READ), tuned(pl::INC));
  ir.extrusion = {layers, 0, layers, false};
  ir.params[0].layered = ir.params[1].layered = true;
  const auto candidates = pl::detail::launch_candidates(ir, *rt.state()->backend);
  const auto runs = [&](bool cells) {
    return std::any_of(candidates.begin(), candidates.end(), [&](const pl::detail::loop_launch& l) {
      return pl::codegen::runs_cells(ir, l.launch, l.writes) == cells;
    });
  };
  CHECK(runs(false));
  CHECK(runs(true));
}

TEST_CASE("an extruded loop runs a cell per work-item where no two cells of a column can race", "[extruded]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set tris(rt, 4, "tris");
  const pl::ExtrudedSet cells(tris, 3, "cells");
  const pl::Map own = pl::extrude(cells, cells, {0}, "own");
  const pl::Dat<double> t(cells, "t"), area(tris, "area");
  pl::Dat<double> q(cells, "q"), column(tris, "column");
  const auto k = pl::kernel("extruded_mapping", [](auto a, auto tt, auto qq) { qq[0][0] += a * tt[0][0]; });
  pl::ir::kernel ir = *k.traced(area(pl::READ), t(pl::READ, own), q(pl::INC, own));
  ir.extrusion = {3, 0, 3, false};
  ir.params[1].layered = ir.params[2].layered = true;
  namespace cg = pl::codegen;
  const auto source = [&](const pl::ir::kernel& of, const pl::strategy& s, pl::conflicts writes) {
    return cg::make_source(of, cg::dialect_kind::cuda, s, pl::ir::source_options{.writes = writes}).code.text;
  };
  const pl::strategy split = pl::split_n_across_workgroups{128};
  // A cell per work-item: its column and layer from its index.
  const std::string by_cell = source(ir, split, pl::conflicts::atomics);
  CHECK_THAT(by_cell, Contains("pl_cell = (long long)pl_start * 3 + pl_item"));
  CHECK_THAT(by_cell, !Contains("for (int pl_l"));
  // The GPU's other strategies too: a grid's work-items stride over the cells, and vectors (of
  // columns' cells, not side by side) become a cell per work-item.
  const pl::strategy stride = pl::grid_stride{128, 2};
  const std::string strided = source(ir, stride, pl::conflicts::atomics);
  CHECK_THAT(strided,
             Contains("for (long long pl_cell = (long long)pl_start * 3 + pl_item; pl_cell < (long long)pl_end * 3;"));
  CHECK_THAT(strided, !Contains("for (int pl_l"));
  CHECK(source(ir, pl::vectors_across_workgroups{128, 2}, pl::conflicts::atomics) == by_cell);
  // A column per work-item: coloured, or a CPU's chunks, or a base dat incremented by each cell.
  CHECK_THAT(source(ir, split, pl::conflicts::colors), Contains("for (int pl_l = 0; pl_l < 3; ++pl_l)"));
  CHECK_THAT(source(ir, pl::chunked{16, 1}, pl::conflicts::atomics), Contains("for (int pl_l = 0; pl_l < 3; ++pl_l)"));
  pl::ir::kernel to_base = ir;
  to_base.params[0].mode = pl::access::inc;
  CHECK_THAT(source(to_base, split, pl::conflicts::atomics), Contains("for (int pl_l"));
  // The grids: a work-item per cell of the range's columns; a grid of at most waves blocks per
  // compute unit.
  const auto made =
      cg::make_source(ir, cg::dialect_kind::cuda, split, pl::ir::source_options{.writes = pl::conflicts::atomics});
  CHECK(made.grid(0, 100, {}) == (100 * 3 + 127) / 128);
  const auto grid =
      cg::make_source(ir, cg::dialect_kind::cuda, stride, pl::ir::source_options{.writes = pl::conflicts::atomics})
          .grid;
  CHECK(grid(0, 100, {.compute_units = 4}) == (100 * 3 + 127) / 128);
  CHECK(grid(0, 10000, {.compute_units = 4}) == 4 * 2);
}

TEST_CASE("what a loop over an extruded set refuses", "[extruded]") {
  const pl::Runtime rt = pl::Runtime::open(parloop_test::device_backend());
  const pl::Set tris(rt, 10, "tris"), plain(rt, 30, "plain");
  const pl::ExtrudedSet cells(tris, 3, "cells");
  const pl::Dat<double> t(cells, "t"), p(plain, "p");
  pl::Dat<double> out(cells, "out");
  const auto copy = pl::kernel("extruded_copy", [](auto a, auto b) { b = a; });
  CHECK_THROWS_WITH(pl::par_loop(copy, cells, pl::range{0, 3}, t(pl::READ), out(pl::WRITE)),
                    Contains("par_loop over extruded set 'cells': a loop over it runs all its columns"));
  CHECK_THROWS_WITH(pl::par_loop(copy, cells, p(pl::READ), out(pl::WRITE)),
                    Contains("dat 'p' is on set 'plain', not on the iteration set or its base 'tris'"));
  // A map with a row per cell is a plain set's map.
  std::vector<pl::index_t> per_cell(30);
  for (std::size_t i = 0; i < per_cell.size(); ++i) per_cell[i] = pl::index_t(i);
  const pl::Map flat(cells, cells, 1, per_cell, "flat");
  CHECK_THROWS_WITH(pl::par_loop(copy, cells, t(pl::READ, flat, 0), out(pl::WRITE)),
                    Contains("map 'flat' has a row for each entity of extruded set 'cells'"));
  CHECK_THROWS_WITH(pl::par_loop(copy, pl::Subset(cells, {1, 4}, "some"), t(pl::READ), out(pl::WRITE)),
                    Contains("its set 'cells' is extruded"));
  // pl::layer() outside a loop over an extruded set, on the host and when traced.
  pl::Dat<int> n(plain, "n");
  const auto layer_of = pl::kernel("extruded_layer_of", [](auto x) { x = pl::layer(); });
  CHECK_THROWS_WITH(pl::par_loop(layer_of, plain, n(pl::WRITE)), Contains("pl::layer() is the layer of the cell"));
}

}  // namespace extruded_test
