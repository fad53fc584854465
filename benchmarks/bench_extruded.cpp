// SPDX-License-Identifier: MIT
// The extruded example's step (examples/extruded, its kernels) against the same arrays processed by ordinary
// parloop sets -- the cells, walls and facets flattened, each with its map written out for every
// layer -- and against the memory floor, in one run on the runtime's backend (PARLOOP_BACKEND).
// The floor of a loop is the bytes it must move (each dat it reads once, each it writes twice:
// a cache line written is read first; maps not counted) at the bandwidth a triad over the cells
// reaches in the same run, counted alike. Each
// figure is the median of repeated timings after a warm-up, the device waited for after each.
// Each extruded loop runs three ways: the runtime's launch, a cell per work-item (the layer
// fastest) and a column per work-item.
// Usage: bench_extruded [base cells (20000)] [layers (50)] [reps (15)]
#include <parloop/parloop.hpp>

#include "common.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "naca0012.hpp"

namespace pl = parloop;

int main(int argc, char** argv) {
  const long long base_cells = argc > 1 ? std::atoll(argv[1]) : 20000;
  const int layers = argc > 2 ? std::atoi(argv[2]) : 50;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 15;
  if (layers < 2 || reps < 1) {
    std::fprintf(stderr, "usage: bench_extruded [base cells >= 72] [layers >= 2] [reps >= 1]\n");
    return 2;
  }
  const airfoil::mesh m = airfoil::make_naca0012(base_cells);
  const auto L = std::size_t(layers);
  const pl::Runtime rt = pl::Runtime::open();

  // Extruded: the base mesh's sets and maps, and columns over them.
  const pl::Set base(rt, m.ncell, "base_cells"), edges(rt, m.nedge, "edges");
  const pl::Map edge_cells(edges, base, 2, m.ecell, "edge_cells");
  const pl::ExtrudedSet cells(base, layers, "cells"), walls(edges, layers, "walls");
  const pl::Map wall_cells = pl::extrude(edge_cells, walls, cells, {0}, "wall_cells");
  const pl::Map own = pl::extrude(cells, cells, {0}, "own");
  const std::size_t n = std::size_t(cells.size());
  const pl::Dat<double> area(base, std::vector<double>(std::size_t(m.ncell), 1.0), "area");
  const pl::Dat<double> conductance(edges, std::vector<double>(std::size_t(m.nedge), 0.5), "conductance");
  std::vector<double> t0(n);
  for (std::size_t i = 0; i < n; ++i) t0[i] = double(i % 97) / 97.0;
  pl::Dat<double> t(cells, t0, "t"), q(cells, "q");

  // Flattened: the same arrays on plain sets, the maps written out for every layer.
  const pl::Set flat_cells(rt, cells.size(), "flat_cells"), flat_walls(rt, walls.size(), "flat_walls");
  const pl::Set flat_facets(rt, m.ncell * (layers - 1), "flat_facets");
  std::vector<pl::index_t> wc(2 * std::size_t(walls.size())), fc(2 * std::size_t(flat_facets.size()));
  std::vector<double> flat_area(n), flat_conductance(std::size_t(walls.size())),
      facet_area(std::size_t(flat_facets.size()));
  for (std::size_t e = 0; e < std::size_t(m.nedge); ++e) {
    for (std::size_t l = 0; l < L; ++l) {
      wc[2 * (e * L + l)] = pl::index_t(std::size_t(m.ecell[2 * e]) * L + l);
      wc[2 * (e * L + l) + 1] = pl::index_t(std::size_t(m.ecell[2 * e + 1]) * L + l);
      flat_conductance[e * L + l] = 0.5;
    }
  }
  for (std::size_t c = 0; c < std::size_t(m.ncell); ++c) {
    for (std::size_t l = 0; l < L; ++l) flat_area[c * L + l] = 1.0;
    for (std::size_t l = 0; l + 1 < L; ++l) {
      fc[2 * (c * (L - 1) + l)] = pl::index_t(c * L + l);
      fc[2 * (c * (L - 1) + l) + 1] = pl::index_t(c * L + l + 1);
      facet_area[c * (L - 1) + l] = 1.0;
    }
  }
  const pl::Map flat_wc(flat_walls, flat_cells, 2, wc, "flat_wc"), flat_fc(flat_facets, flat_cells, 2, fc, "flat_fc");
  const pl::Dat<double> farea(flat_cells, flat_area, "farea"), fcond(flat_walls, flat_conductance, "fcond");
  const pl::Dat<double> ffacet(flat_facets, facet_area, "ffacet");
  pl::Dat<double> ft(flat_cells, t0, "ft"), fq(flat_cells, "fq"), triad_out(flat_cells, "triad_out");
  pl::Global<double> dz(rt, 1.0 / layers, "dz"), dt(rt, 1e-4, "dt"), s(rt, 3.0, "s");
  pl::Global<double> change(rt, 0.0, "change"), heat(rt, 0.0, "heat");

  const auto horizontal = extruded::horizontal_flux();
  const auto vertical = extruded::vertical_flux();
  const auto update = extruded::update();
  const auto triad = pl::kernel("bench_extruded_triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });

  const auto seconds = [&](const std::function<void()>& loop) {
    return parloop_bench::median_loop_seconds(rt, reps, loop);
  };
  const double triad_s =
      seconds([&] { pl::par_loop(triad, flat_cells, triad_out(pl::WRITE), ft(pl::READ), fq(pl::READ), s(pl::READ)); });
  // The triad reads 2 arrays of n doubles and writes one, counted twice as the loops' writes are
  // (a cache line written is read first).
  const double bandwidth = 4.0 * 8.0 * double(n) / triad_s;
  // Each extruded loop three ways: the runtime's launch; a cell per work-item, the layer fastest
  // (split_n_across_workgroups with atomics); a column per work-item (chunked{64, 1}).
  const auto horizontal_loop = [&](const auto&... how) {
    pl::par_loop(horizontal, walls, how..., conductance(pl::READ), t(pl::READ, wall_cells, 0),
                 t(pl::READ, wall_cells, 1), q(pl::INC, wall_cells, 0), q(pl::INC, wall_cells, 1), dz(pl::READ));
  };
  const auto vertical_loop = [&](const auto&... how) {
    pl::par_loop(vertical, cells.interior_facets(), how..., area(pl::READ), t(pl::READ, own), q(pl::INC, own),
                 dz(pl::READ));
  };
  const auto update_loop = [&](const auto&... how) {
    pl::par_loop(update, cells, how..., area(pl::READ), t(pl::RW), q(pl::RW), dz(pl::READ), dt(pl::READ),
                 change(pl::MAX), heat(pl::INC));
  };
  struct row {
    const char* name;
    double runtime_default, by_cell, by_column, flat, bytes;
  };
  const auto three_ways = [&](const auto& loop) {
    return std::array<double, 3>{seconds([&] { loop(); }),
                                 seconds([&] { loop(pl::split_n_across_workgroups{256}, pl::conflicts::atomics); }),
                                 seconds([&] {
                                   loop(pl::chunked{64, 1});
                                 })};
  };
  const double cells_bytes = 8.0 * double(n);
  std::vector<row> rows;
  const auto add = [&](const char* name, const std::array<double, 3>& extruded, double flat, double bytes) {
    rows.push_back({name, extruded[0], extruded[1], extruded[2], flat, bytes});
  };
  add("horizontal", three_ways(horizontal_loop), seconds([&] {
        pl::par_loop(horizontal, flat_walls, fcond(pl::READ), ft(pl::READ, flat_wc, 0), ft(pl::READ, flat_wc, 1),
                     fq(pl::INC, flat_wc, 0), fq(pl::INC, flat_wc, 1), dz(pl::READ));
      }),
      // t read, q read and written; the base's conductances.
      3 * cells_bytes + 8.0 * m.nedge);
  add("vertical", three_ways(vertical_loop), seconds([&] {
        pl::par_loop(vertical, flat_facets, ffacet(pl::READ), ft(pl::READ, flat_fc), fq(pl::INC, flat_fc),
                     dz(pl::READ));
      }),
      3 * cells_bytes + 8.0 * m.ncell);
  add("update", three_ways(update_loop), seconds([&] {
        pl::par_loop(update, flat_cells, farea(pl::READ), ft(pl::RW), fq(pl::RW), dz(pl::READ), dt(pl::READ),
                     change(pl::MAX), heat(pl::INC));
      }),
      4 * cells_bytes + 8.0 * m.ncell);
  std::printf("bench_extruded on %s (%s): %d base cells x %d layers = %zu cells, median of %d\n",
              std::string(pl::backend_name(rt.kind())).c_str(), rt.device_name().c_str(), m.ncell, layers, n, reps);
  std::printf("triad over the cells: %.3f ms, %.1f GB/s (the floors' bandwidth)\n", 1e3 * triad_s, 1e-9 * bandwidth);
  std::printf("%-11s %11s %11s %11s %11s %9s %11s %9s  (ratio: the runtime's launch to the flattened loop)\n", "loop",
              "extruded", "by cell", "by column", "flattened", "ratio", "floor", "to floor");
  row total{"step", 0, 0, 0, 0, 0};
  for (const row& r : rows) {
    total.runtime_default += r.runtime_default;
    total.by_cell += r.by_cell;
    total.by_column += r.by_column;
    total.flat += r.flat;
    total.bytes += r.bytes;
  }
  rows.push_back(total);
  for (const row& r : rows) {
    const double floor = r.bytes / bandwidth;
    std::printf("%-11s %8.3f ms %8.3f ms %8.3f ms %8.3f ms %8.2fx %8.3f ms %8.2fx\n", r.name, 1e3 * r.runtime_default,
                1e3 * r.by_cell, 1e3 * r.by_column, 1e3 * r.flat, r.runtime_default / r.flat, 1e3 * floor,
                r.runtime_default / floor);
  }
  return 0;
}
