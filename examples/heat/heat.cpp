// SPDX-License-Identifier: MIT
// Explicit heat diffusion on an n x n grid of nodes, its boundary conditions given by subsets --
// as PyOP2's and Firedrake's boundary conditions are: the left wall is held at 1, the other walls
// at 0, and the interior (the nodes minus both walls) is updated from the fluxes through the
// grid's edges. A probe, a subset of the interior, reports the temperature along the middle row.
// The same steps as plain C++ loops check the result.
//   heat [grid size (64)] [steps (2000)]
#include <parloop/parloop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace pl = parloop;

namespace {

struct grid {
  int n = 0;
  std::vector<pl::index_t> edge_nodes;  // the two nodes of each edge
  std::vector<pl::index_t> hot, cold;   // the left wall; the other walls
};

grid make_grid(int n) {
  grid g;
  g.n = n;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int node = i * n + j;
      if (j + 1 < n) g.edge_nodes.insert(g.edge_nodes.end(), {node, node + 1});
      if (i + 1 < n) g.edge_nodes.insert(g.edge_nodes.end(), {node, node + n});
      if (j == 0)
        g.hot.push_back(node);
      else if (i == 0 || i == n - 1 || j == n - 1)
        g.cold.push_back(node);
    }
  }
  return g;
}

int heat(int n, int steps) {
  const grid g = make_grid(n);
  const auto n_nodes = static_cast<pl::index_t>(n * n);
  const auto n_edges = static_cast<pl::index_t>(g.edge_nodes.size() / 2);
  const double dt = 0.2;  // stable: dt <= 1/4 on this grid

  const pl::Runtime rt = pl::Runtime::open();
  const pl::Set nodes(rt, n_nodes, "nodes"), edges(rt, n_edges, "edges");
  const pl::Map ends(edges, nodes, 2, g.edge_nodes, "ends");
  const pl::Subset hot(nodes, g.hot, "hot wall"), cold(nodes, g.cold, "cold walls");
  const pl::Subset walls = hot | cold;
  const pl::Subset interior = nodes - walls;
  // The interior's middle row: positions in `interior`, whose elements are in row order.
  std::vector<pl::index_t> middle;
  for (int j = 0; j < n - 2; ++j) middle.push_back((n / 2 - 1) * (n - 2) + j);
  const pl::Subset probe(interior, middle, "probe");

  pl::Dat<double> t(nodes, "t"), flux(nodes, "flux");
  pl::Global<double> change(rt, 0.0, "change"), probe_sum(rt, 0.0, "probe_sum");
  const auto set_to = pl::kernel("set_to", [](auto t, auto v) { t = v; });
  const auto fluxes = pl::kernel("fluxes", [](auto t0, auto t1, auto f0, auto f1) {
    const auto f = t1 - t0;
    f0 += f;
    f1 -= f;
  });
  const auto step = pl::kernel("step", [](auto t, auto f, auto dt, auto change) {
    t += dt * f;
    change = pl::max(change, pl::fabs(dt * f));
    f = 0.0;
  });
  const auto zero = pl::kernel("zero", [](auto f) { f = 0.0; });
  const auto sum = pl::kernel("sum", [](auto t, auto s) { s += t; });

  pl::Global<double> one(rt, 1.0, "one");
  pl::par_loop(set_to, hot, t(pl::WRITE), one(pl::READ));
  pl::Global<double> step_size(rt, dt, "dt");
  for (int s = 0; s < steps; ++s) {
    pl::par_loop(fluxes, edges, t(pl::READ, ends, 0), t(pl::READ, ends, 1), flux(pl::INC, ends, 0),
                 flux(pl::INC, ends, 1));
    change.set_value(0.0);
    pl::par_loop(step, interior, t(pl::RW), flux(pl::RW), step_size(pl::READ), change(pl::MAX));
    // The walls keep their temperatures; their fluxes start again from zero.
    pl::par_loop(zero, walls, flux(pl::WRITE));
  }
  pl::par_loop(sum, probe, t(pl::READ), probe_sum(pl::INC));
  const std::vector<double> values(t.host().begin(), t.host().end());

  // The same steps as plain loops.
  std::vector<double> ref(static_cast<std::size_t>(n_nodes), 0.0), f(ref.size(), 0.0);
  for (const pl::index_t h : g.hot) ref[static_cast<std::size_t>(h)] = 1.0;
  std::vector<bool> wall(ref.size(), false);
  for (const pl::index_t w : g.hot) wall[static_cast<std::size_t>(w)] = true;
  for (const pl::index_t w : g.cold) wall[static_cast<std::size_t>(w)] = true;
  double last_change = 0.0;
  for (int s = 0; s < steps; ++s) {
    for (pl::index_t e = 0; e < n_edges; ++e) {
      const auto a = static_cast<std::size_t>(g.edge_nodes[2 * static_cast<std::size_t>(e)]);
      const auto b = static_cast<std::size_t>(g.edge_nodes[2 * static_cast<std::size_t>(e) + 1]);
      f[a] += ref[b] - ref[a];
      f[b] -= ref[b] - ref[a];
    }
    last_change = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (!wall[i]) {
        ref[i] += dt * f[i];
        last_change = std::max(last_change, std::fabs(dt * f[i]));
      }
      f[i] = 0.0;
    }
  }
  double ref_probe = 0.0, diff = 0.0;
  for (const pl::index_t p : probe.indices()) ref_probe += ref[static_cast<std::size_t>(p)];
  for (std::size_t i = 0; i < ref.size(); ++i) diff = std::max(diff, std::fabs(values[i] - ref[i]));

  // Devices add a node's fluxes in another order and may fuse multiply-adds.
  const double tolerance = 1e-12;
  const bool ok = diff <= tolerance && std::fabs(probe_sum.value() - ref_probe) <= tolerance * static_cast<double>(n) &&
                  std::fabs(change.value() - last_change) <= tolerance;
  std::printf("heat on %s: %d x %d nodes, %d edges, %d steps; walls %d hot, %d cold, interior %d nodes\n",
              rt.device_name().c_str(), n, n, n_edges, steps, hot.size(), cold.size(), interior.size());
  std::printf("  mean temperature along the middle row = %.10f, last step's largest change = %.3e\n",
              probe_sum.value() / static_cast<double>(probe.size()), change.value());
  std::printf("  max |t - plain C++ loops| = %.3e -> %s\n", diff, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (n < 3 || steps < 0) {
    std::fprintf(stderr, "usage: heat [grid size >= 3] [steps >= 0]\n");
    return 2;
  }
  try {
    return heat(n, steps);
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
