// SPDX-License-Identifier: MIT
// Writes an Airfoil mesh (OP2's layout) with its cells in one of the orders issue 28 asked to
// compare, the other sets following them as pl::renumber's do (edges by their cells, nodes by
// first touch: order/locality_order.hpp's orders_following):
//   rcm      reverse Cuthill-McKee of the cells' graph: what pl::renumber does
//   hilbert  the cells' centres along a Hilbert curve through the mesh's bounding box
//   scotch   Scotch's ordering of the cells' graph (SCOTCH_graphOrder, its default strategy:
//            nested dissection), where parloop was built with Scotch
// Airfoil then runs each with --no-renumber (ORDERS="rcm hilbert scotch" benchmarks/renumber_airfoil.sh
// times them).
// Usage: order_mesh IN OUT --by rcm|hilbert|scotch
#include "../examples/airfoil/mesh.hpp"
#include "mesh_orders.hpp"

#if PARLOOP_HAVE_SCOTCH
#include <cstdio>  // scotch.h uses FILE
#include <scotch.h>
#endif

#include <parloop/order/locality_order.hpp>
#include <parloop/order/mesh_graph.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using parloop::index_t;

// The position of (x, y), each in [0, 2^bits), along the Hilbert curve through that square.
std::uint64_t hilbert_index(std::uint32_t x, std::uint32_t y, int bits) {
  std::uint64_t d = 0;
  for (std::uint32_t s = std::uint32_t{1} << (bits - 1); s > 0; s >>= 1) {
    const std::uint32_t rx = (x & s) != 0 ? 1 : 0, ry = (y & s) != 0 ? 1 : 0;
    d += static_cast<std::uint64_t>(s) * s * ((3 * rx) ^ ry);
    // Rotates the quadrant so that the curve's pieces join.
    if (ry == 0) {
      if (rx == 1) {
        x = s - 1 - (x & (s - 1));
        y = s - 1 - (y & (s - 1));
      }
      std::swap(x, y);
    }
    x &= s - 1;
    y &= s - 1;
  }
  return d;
}

// Cells by the Hilbert index of their centres: 2^24 steps a side of the bounding box, finer
// than the smallest cell of a 200-million-cell mesh's far field needs.
std::vector<index_t> hilbert_order(const airfoil::mesh& m) {
  constexpr int bits = 24;
  double lo[2] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
  double hi[2] = {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::lowest()};
  for (std::size_t n = 0; n < m.x.size(); ++n) {
    lo[n % 2] = std::min(lo[n % 2], m.x[n]);
    hi[n % 2] = std::max(hi[n % 2], m.x[n]);
  }
  const double span = std::max({hi[0] - lo[0], hi[1] - lo[1], 1e-300});
  const double steps = static_cast<double>((std::uint32_t{1} << bits) - 1);
  std::vector<std::pair<std::uint64_t, index_t>> keyed(static_cast<std::size_t>(m.ncell));
  for (std::size_t c = 0; c < keyed.size(); ++c) {
    double centre[2] = {0.0, 0.0};
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t a = 0; a < 2; ++a) centre[a] += 0.25 * m.x[2 * static_cast<std::size_t>(m.cell[4 * c + k]) + a];
    }
    const auto step = [&](std::size_t a) { return static_cast<std::uint32_t>((centre[a] - lo[a]) / span * steps); };
    keyed[c] = {hilbert_index(step(0), step(1), bits), static_cast<index_t>(c)};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<index_t> order(keyed.size());
  for (std::size_t c = 0; c < keyed.size(); ++c) order[c] = keyed[c].second;
  return order;
}

std::vector<index_t> scotch_order([[maybe_unused]] const airfoil::mesh& m) {
#if PARLOOP_HAVE_SCOTCH
  // The cells' graph as pl::renumber makes it: two cells of an edge are neighbours.
  const parloop::detail::map_rows edge_cells{m.ecell, 2};
  const parloop::detail::adjacency g = parloop::detail::graph_through(m.ncell, {&edge_cells, 1}, {});
  std::vector<SCOTCH_Num> offsets(g.offsets.begin(), g.offsets.end()),
      neighbours(g.neighbours.begin(), g.neighbours.end());
  std::vector<SCOTCH_Num> new_of_old(static_cast<std::size_t>(m.ncell)), old_of_new(new_of_old.size());
  SCOTCH_Graph graph;
  SCOTCH_Strat strategy;
  SCOTCH_graphInit(&graph);
  SCOTCH_stratInit(&strategy);
  int status = SCOTCH_graphBuild(&graph, 0, m.ncell, offsets.data(), nullptr, nullptr, nullptr,
                                 static_cast<SCOTCH_Num>(neighbours.size()), neighbours.data(), nullptr);
  if (status == 0) {
    status = SCOTCH_graphOrder(&graph, &strategy, new_of_old.data(), old_of_new.data(), nullptr, nullptr, nullptr);
  }
  SCOTCH_stratExit(&strategy);
  SCOTCH_graphExit(&graph);
  if (status != 0) throw parloop::error("SCOTCH_graphOrder failed");
  return {old_of_new.begin(), old_of_new.end()};
#else
  throw parloop::argument_error("--by scotch: this build of parloop has no Scotch");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string_view> paths;
    std::string_view by;
    for (int i = 1; i < argc; ++i) {
      const std::string_view a = argv[i];
      if (a == "--by") {
        if (i + 1 >= argc) throw parloop::argument_error("--by needs rcm, hilbert or scotch");
        by = argv[++i];
      } else {
        paths.push_back(a);
      }
    }
    if (paths.size() != 2 || (by != "rcm" && by != "hilbert" && by != "scotch")) {
      throw parloop::argument_error("usage: order_mesh IN OUT --by rcm|hilbert|scotch");
    }
    const airfoil::mesh m = airfoil::read_mesh(std::string(paths[0]));
    const parloop::detail::mesh_links links = mesh_orders::links(m);
    constexpr int cells = 3;  // in links()' numbering of the sets
    const auto orders = by == "rcm"       ? parloop::detail::locality_orders(links, cells)
                        : by == "hilbert" ? parloop::detail::orders_following(links, cells, hilbert_order(m))
                                          : parloop::detail::orders_following(links, cells, scotch_order(m));
    airfoil::write_mesh(mesh_orders::reordered(m, mesh_orders::from_sets(orders)), std::string(paths[1]));
    std::printf("%s: %d cells ordered by %s\n", std::string(paths[1]).c_str(), m.ncell, std::string(by).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "order_mesh: %s\n", e.what());
    return 1;
  }
}
