// SPDX-License-Identifier: MIT
// Jacobi iteration in the style of OP2's jac1: a Laplace problem on an n x n grid of nodes,
// written as an edge loop that increments through a map and a node loop that updates and
// reduces. The boundary holds u = 1, so the exact solution is u = 1 everywhere; the result
// is also compared with the same iteration written as plain C++ loops.
//
// jacobi_mpi is the same program over MPI ranks (mpirun -np N jacobi_mpi [n] [iterations]): each
// rank gives a block of the grid's nodes and edges -- what a program reading its part of a mesh
// file would have; here each makes the whole grid and takes its block -- the grid is distributed
// by the graph of its edges and gathered back on rank 0.
#include <parloop/parloop.hpp>
#if PARLOOP_JACOBI_MPI
#include <parloop/mpi/distribute.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
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
        if (ni < 0 || ni >= n || nj < 0 || nj >= n)
          g.rhs[node] += 0.25;
        else
          add_edge(node, ni * n + nj, 0.25);
      }
    }
  }
  return g;
}

// The grid's sets, map and constant dats on a runtime: the whole grid, or this rank's share.
struct grid_handles {
  pl::Set nodes, edges;
  pl::Map pedge;
  pl::Dat<double> A, r;
};

#if PARLOOP_JACOBI_MPI
bool prints() { return pl::mpi::rank_of(MPI_COMM_WORLD) == 0; }
// Collective. Each rank declares its block of every set (the ranks' blocks in rank order), with
// its edges' rows of the map (in the nodes' global numbering) and its elements' values.
grid_handles on_runtime(const pl::Runtime& rt, const grid& g) {
  namespace pm = pl::mpi;
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  // [first, end) of n elements.
  const auto block = [&](std::size_t n) {
    return std::pair{n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks),
                     n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks)};
  };
  const auto [n0, n1] = block(static_cast<std::size_t>(g.n_nodes));
  const auto [e0, e1] = block(g.weight.size());
  pm::global_mesh mesh(pm::values_from::each_rank);
  const auto nodes = mesh.set(static_cast<pl::index_t>(n1 - n0), "nodes");
  const auto edges = mesh.set(static_cast<pl::index_t>(e1 - e0), "edges");
  const auto pedge = mesh.map(edges, nodes, 2, std::span(g.edge_nodes).subspan(2 * e0, 2 * (e1 - e0)), "pedge");
  const auto A = mesh.dat<double, 1>(edges, std::span(g.weight).subspan(e0, e1 - e0), "A");
  const auto r = mesh.dat<double, 1>(nodes, std::span(g.rhs).subspan(n0, n1 - n0), "r");
  const pm::distributed_mesh mine(rt, MPI_COMM_WORLD, mesh, pm::partitioning::by_graph(pedge));
  return {mine[nodes], mine[edges], mine[pedge], mine[A], mine[r]};
}
// u in global numbering, on rank 0.
std::vector<double> result(const pl::Dat<double>& u) { return pl::mpi::gather(u); }
#else
bool prints() { return true; }
grid_handles on_runtime(const pl::Runtime& rt, const grid& g) {
  const pl::Set nodes(rt, g.n_nodes, "nodes"), edges(rt, static_cast<pl::index_t>(g.weight.size()), "edges");
  return {nodes, edges, pl::Map(edges, nodes, 2, g.edge_nodes, "pedge"), pl::Dat<double>(edges, g.weight, "A"),
          pl::Dat<double>(nodes, g.rhs, "r")};
}
std::vector<double> result(const pl::Dat<double>& u) { return {u.host().begin(), u.host().end()}; }
#endif

int jacobi(int n, int iterations) {
  // Over MPI every rank makes the grid and gives its block of it (a program would read its part).
  const grid g = make_grid(n);
  const int n_edges = static_cast<int>(g.weight.size());

  const pl::Runtime rt = pl::Runtime::open();
  grid_handles h = on_runtime(rt, g);
  pl::Dat<double> u(h.nodes, "u"), du(h.nodes, "du");
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
    pl::par_loop(res, h.edges, h.A(pl::READ), u(pl::READ, h.pedge, 1), du(pl::INC, h.pedge, 0), beta(pl::READ));
    u_sum.set_value(0.0);
    u_max.set_value(0.0);
    pl::par_loop(update, h.nodes, h.r(pl::READ), du(pl::RW), u(pl::RW), u_sum(pl::INC), u_max(pl::MAX),
                 alpha(pl::READ));
  }
  const std::vector<double> values = result(u);
  const double sum = u_sum.value(), largest = u_max.value();
  if (!prints()) return 0;

  // The same iteration as plain loops.
  std::vector<double> ref(static_cast<std::size_t>(g.n_nodes), 0.0), dref(ref.size(), 0.0);
  for (int it = 0; it < iterations; ++it) {
    for (int e = 0; e < n_edges; ++e) dref[g.edge_nodes[2 * e]] += g.weight[e] * ref[g.edge_nodes[2 * e + 1]];
    for (std::size_t i = 0; i < ref.size(); ++i) {
      ref[i] += dref[i] + g.rhs[i];
      dref[i] = 0.0;
    }
  }

  double error = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    error = std::max(error, std::fabs(values[i] - 1.0));
    diff = std::max(diff, std::fabs(values[i] - ref[i]));
  }
  // Devices add the edge contributions in another order (atomics) and may fuse multiply-adds;
  // ranks add a node's in another order too.
  const double tolerance = 1e-12;
#if PARLOOP_JACOBI_MPI
  const std::string ranks = " on " + std::to_string(pl::mpi::size_of(MPI_COMM_WORLD)) + " MPI ranks";
#else
  const std::string ranks;
#endif
  std::printf("jacobi on %s%s: %d x %d nodes, %d edges, %d iterations\n", rt.device_name().c_str(), ranks.c_str(), n, n,
              n_edges, iterations);
  std::printf("  u_sum = %.10f, u_max = %.10f\n", sum, largest);
  std::printf("  max |u - 1| = %.3e (distance from the exact solution)\n", error);
  std::printf("  max |u - plain C++ loops| = %.3e -> %s\n", diff, diff <= tolerance ? "ok" : "MISMATCH");
  return diff <= tolerance ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (n < 1 || iterations < 0) {
    std::fprintf(stderr, "usage: jacobi [grid size >= 1] [iterations >= 0]\n");
    return 2;
  }
#if PARLOOP_JACOBI_MPI
  // An error on any rank ends the job, saying which rank and why: the others may be waiting for it.
  return pl::mpi::run(argc, argv, [&] { return jacobi(n, iterations); });
#else
  try {
    return jacobi(n, iterations);
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
#endif
}
