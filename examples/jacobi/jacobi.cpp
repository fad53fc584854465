// SPDX-License-Identifier: MIT
// Jacobi iteration in the style of OP2's jac1: a Laplace problem on an n x n grid of nodes,
// written as an edge loop that increments through a map and a node loop that updates and
// reduces. The boundary holds u = 1, so the exact solution is u = 1 everywhere; the result
// is also compared with the same iteration written as plain C++ loops.
#include <parloop/parloop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace pl = parloop;

namespace {

// The 5-point stencil as edges: a self edge (weight -1) and one edge per interior
// neighbour (weight 1/4); neighbours on the boundary (u = 1) go into the right-hand side.
struct grid {
  int n_nodes = 0;
  std::vector<pl::index_t> edge_nodes;  // (target, source) per edge
  std::vector<double> weight;
  std::vector<double> rhs;
};

grid make_grid(int n) {
  grid g;
  g.n_nodes = n * n;
  g.rhs.assign(static_cast<std::size_t>(g.n_nodes), 0.0);
  const auto add_edge = [&](int to, int from, double w) {
    g.edge_nodes.push_back(to);
    g.edge_nodes.push_back(from);
    g.weight.push_back(w);
  };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int node = i * n + j;
      add_edge(node, node, -1.0);
      const int di[] = {-1, 1, 0, 0}, dj[] = {0, 0, -1, 1};
      for (int k = 0; k < 4; ++k) {
        const int ni = i + di[k], nj = j + dj[k];
        if (ni < 0 || ni >= n || nj < 0 || nj >= n) g.rhs[node] += 0.25;
        else add_edge(node, ni * n + nj, 0.25);
      }
    }
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (n < 1 || iterations < 0) {
    std::fprintf(stderr, "usage: jacobi [grid size >= 1] [iterations >= 0]\n");
    return 2;
  }
  try {
    const grid g = make_grid(n);
    const int n_edges = static_cast<int>(g.weight.size());

    const pl::Runtime rt = pl::Runtime::open();
    const pl::Set nodes(rt, g.n_nodes, "nodes"), edges(rt, n_edges, "edges");
    const pl::Map pedge(edges, nodes, 2, g.edge_nodes, "pedge");
    pl::Dat<double> A(edges, g.weight, "A"), r(nodes, g.rhs, "r");
    pl::Dat<double> u(nodes, "u"), du(nodes, "du");
    pl::Global<double> alpha(rt, 1.0, "alpha"), beta(rt, 1.0, "beta");
    pl::Global<double> u_sum(rt, 0.0, "u_sum"), u_max(rt, 0.0, "u_max");

    auto res = pl::kernel("res", [](auto A, auto u, auto du, auto beta) { du += beta * A * u; });
    auto update = pl::kernel("update", [](auto r, auto du, auto u, auto u_sum, auto u_max, auto alpha) {
      u += du + alpha * r;
      du = 0.0;
      u_sum += u * u;
      u_max = pl::max(u_max, u);
    });

    for (int it = 0; it < iterations; ++it) {
      pl::par_loop(res, edges, A(pl::READ), u(pl::READ, pedge, 1), du(pl::INC, pedge, 0), beta(pl::READ));
      u_sum.set_value(0.0);
      u_max.set_value(0.0);
      pl::par_loop(update, nodes, r(pl::READ), du(pl::RW), u(pl::RW), u_sum(pl::INC), u_max(pl::MAX),
                   alpha(pl::READ));
    }

    // The same iteration as plain loops.
    std::vector<double> ref(static_cast<std::size_t>(g.n_nodes), 0.0), dref(ref.size(), 0.0);
    for (int it = 0; it < iterations; ++it) {
      for (int e = 0; e < n_edges; ++e) dref[g.edge_nodes[2 * e]] += g.weight[e] * ref[g.edge_nodes[2 * e + 1]];
      for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] += dref[i] + g.rhs[i];
        dref[i] = 0.0;
      }
    }

    const auto result = u.host();
    double error = 0.0, diff = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      error = std::max(error, std::fabs(result[i] - 1.0));
      diff = std::max(diff, std::fabs(result[i] - ref[i]));
    }
    // Devices add the edge contributions in another order (atomics) and may fuse multiply-adds.
    const double tolerance = 1e-12;
    std::printf("jacobi on %s: %d x %d nodes, %d edges, %d iterations\n", rt.device_name().c_str(), n, n, n_edges,
                iterations);
    std::printf("  u_sum = %.10f, u_max = %.10f\n", u_sum.value(), u_max.value());
    std::printf("  max |u - 1| = %.3e (distance from the exact solution)\n", error);
    std::printf("  max |u - plain C++ loops| = %.3e -> %s\n", diff, diff <= tolerance ? "ok" : "MISMATCH");
    return diff <= tolerance ? 0 : 1;
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
