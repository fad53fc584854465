// SPDX-License-Identifier: MIT
// par_loop on a mesh distributed over real MPI ranks (mpirun -np 1, 2 and 4; the backend
// PARLOOP_TEST_BACKEND names, host by default): the same loops on the whole mesh in one host
// runtime and distributed, partitioned by graph, by coordinates and at random with a rank that
// owns nothing, give the same values -- exactly, since they add integers -- gathered in global
// numbering, and the same reductions on every rank -- with each rank's regions ordered for
// locality (the default) and in global order. Each dat is changed and read again, so that a
// stale halo would show. Each rank has a disk cache of its own: a loop's kernel is compiled by
// one rank and received by the others. With PARLOOP_MPI_CHECK, ranks that made other calls
// fail alike. Checks only (no REQUIRE): a rank leaving a test case early would leave the
// others waiting in a collective.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>
#include <stdlib.h>  // mkdtemp, setenv

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <parloop/mpi/distribute.hpp>
#if PARLOOP_HAVE_HDF5
#include <parloop/io/hdf5_mpi.hpp>
#endif
#include <parloop/parloop.hpp>

#include "device_under_test.hpp"
#include "mpi_mesh.hpp"

namespace pl = parloop;
namespace pm = parloop::mpi;
using i64 = std::int64_t;

namespace {

struct mesh_data {
  parloop_test::mesh m = parloop_test::random_mesh(400, 900, 350);
  std::vector<i64> node_values, cell_values, edge_values;
  std::vector<double> node_pairs, cell_centres;
  mesh_data() {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> pick(-50, 50);
    for (int n = 0; n < m.sizes[2]; ++n) {
      node_values.push_back(pick(rng));
      node_pairs.push_back(pick(rng));
      node_pairs.push_back(pick(rng));
    }
    for (int e = 0; e < m.sizes[1]; ++e) edge_values.push_back(pick(rng));
    for (int c = 0; c < m.sizes[0]; ++c) {
      cell_values.push_back(pick(rng));
      cell_centres.push_back(std::uniform_real_distribution<double>(0, 1)(rng));
      cell_centres.push_back(std::uniform_real_distribution<double>(0, 1)(rng));
    }
  }
};

struct handles {
  pl::Set cells, edges, nodes;
  pl::Map edge_cells, edge_nodes, cell_nodes;
  pl::Dat<i64> u, q, res;  // on nodes, cells, cells
  pl::Dat<double, 2> p;    // on nodes
  pl::Dat<i64> w;          // on edges
};

struct results {
  std::vector<i64> u, q, res;
  std::vector<double> p;
  std::vector<i64> w;
  i64 sum = 0, smallest = 0, largest = 0, edge_sum = 0, edge_min = 0;
  double p_sum = 0;
};

// The loops, alike on the whole mesh and distributed.
results run_loops(const pl::Runtime& rt, handles& h) {
  pl::Global<i64> sum(rt, 5, "sum"), smallest(rt, 1000000, "smallest"), largest(rt, -1000000, "largest");
  pl::Global<i64> edge_sum(rt, 0, "edge_sum"), edge_min(rt, 1000000, "edge_min");
  pl::Global<double> p_sum(rt, 0.0, "p_sum");
  const auto nodes_up = pl::kernel("nodes_up", [](auto u, auto p) {
    u = u * 2 + 1;
    p[0] = p[0] + p[1];
    p[1] = p[1] - 1.0;
  });
  const auto edges_up = pl::kernel("edges_up", [](auto w) { w = w * 5 - 3; });
  const auto fluxes = pl::kernel("fluxes", [](auto a, auto b, auto pa, auto w, auto r0, auto r1, auto s, auto lo) {
    const auto v = a * 3 + b + w;
    r0 += v;
    r1 -= 2 * v;
    s += a;
    lo = pl::min(lo, w - a);
    static_cast<void>(pa);
  });
  const auto gather_nodes = pl::kernel(
      "gather_nodes", [](auto u0, auto u1, auto u2, auto p0, auto q, auto res, auto s, auto lo, auto hi, auto ps) {
        q = q + u0 - u1 * u2 + res;
        s += q;
        lo = pl::min(lo, q);
        hi = pl::max(hi, q);
        ps += p0[0] * 0.5;
      });
  const auto fluxes_p = pl::kernel("fluxes_p", [](auto pa, auto pb, auto r) { r += pl::cast<i64>(pa[0] - pb[1]); });
  for (int step = 0; step < 3; ++step) {
    // Node values change (direct), then are read through maps: their halos must travel again.
    pl::par_loop(nodes_up, h.nodes, h.u(pl::RW), h.p(pl::RW));
    // Edge values change on the owned edges only.
    pl::par_loop(edges_up, h.edges, h.w(pl::RW));
    // Increments through a map, with a sum and a minimum: the exec halo runs (its edges' w
    // brought first) and its part of the sum is dropped.
    pl::par_loop(fluxes, h.edges, h.u(pl::READ, h.edge_nodes, 0), h.u(pl::READ, h.edge_nodes, 1),
                 h.p(pl::READ, h.edge_nodes, 0), h.w(pl::READ), h.res(pl::INC, h.edge_cells, 0),
                 h.res(pl::INC, h.edge_cells, 1), edge_sum(pl::INC), edge_min(pl::MIN));
    // Owned cells only, reading nodes, with every kind of reduction.
    pl::par_loop(gather_nodes, h.cells, h.u(pl::READ, h.cell_nodes, 0), h.u(pl::READ, h.cell_nodes, 1),
                 h.u(pl::READ, h.cell_nodes, 2), h.p(pl::READ, h.cell_nodes, 0), h.q(pl::RW), h.res(pl::READ),
                 sum(pl::INC), smallest(pl::MIN), largest(pl::MAX), p_sum(pl::INC));
    // A dat of two components read through a map whose halo was exchanged in this step already.
    pl::par_loop(fluxes_p, h.edges, h.p(pl::READ, h.edge_nodes, 0), h.p(pl::READ, h.edge_nodes, 1),
                 h.res(pl::INC, h.edge_cells, 1));
  }
  return {
      {},           {}, {}, {}, {}, sum.value(), smallest.value(), largest.value(), edge_sum.value(), edge_min.value(),
      p_sum.value()};
}

// The whole mesh in one process.
handles whole_mesh(const pl::Runtime& rt, const mesh_data& d) {
  const auto& m = d.m;
  const pl::Set cells(rt, m.sizes[0], "cells"), edges(rt, m.sizes[1], "edges"), nodes(rt, m.sizes[2], "nodes");
  return {cells,
          edges,
          nodes,
          pl::Map(edges, cells, 2, m.edge_cells, "edge_cells"),
          pl::Map(edges, nodes, 2, m.edge_nodes, "edge_nodes"),
          pl::Map(cells, nodes, 3, m.cell_nodes, "cell_nodes"),
          pl::Dat<i64>(nodes, d.node_values, "u"),
          pl::Dat<i64>(cells, d.cell_values, "q"),
          pl::Dat<i64>(cells, "res"),
          pl::Dat<double, 2>(nodes, d.node_pairs, "p"),
          pl::Dat<i64>(edges, d.edge_values, "w")};
}

results serial(const mesh_data& d) {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  handles h = whole_mesh(rt, d);
  results r = run_loops(rt, h);
  r.u.assign(h.u.host().begin(), h.u.host().end());
  r.q.assign(h.q.host().begin(), h.q.host().end());
  r.res.assign(h.res.host().begin(), h.res.host().end());
  r.p.assign(h.p.host().begin(), h.p.host().end());
  r.w.assign(h.w.host().begin(), h.w.host().end());
  return r;
}

// Which elements of each set a rank declares: [first, first + count).
struct block {
  pl::index_t first = 0, count = 0;
};

struct declared {
  pm::global_mesh mesh;
  pm::set_id cells, edges, nodes;
  pm::map_id edge_cells, edge_nodes, cell_nodes;
  pm::dat_id<i64, 1> u, q, res, w;
  pm::dat_id<double, 2> p, centres;
  std::vector<i64> zeros;
  // Every rank declares; only rank 0's sizes and values are read (the others declare none).
  declared(const mesh_data& d, bool root)
      : declared(d, pm::values_from::root, [&](pl::index_t n) {
          return root ? block{0, n} : block{};
        }) {}
  // Each rank declares its block of every set (pm::values_from::each_rank), the ranks' blocks of
  // unequal sizes, the last rank's empty where there are several.
  declared(const mesh_data& d, int rank, int ranks)
      : declared(d, pm::values_from::each_rank, [&](pl::index_t n) {
          // Rank r of the first ranks - 1 ends its block at n (r + 1)^2 / (ranks - 1)^2.
          const long long given = std::max(ranks - 1, 1);
          const auto end_of = [&](int r) {
            return static_cast<pl::index_t>(std::min<long long>(n, n * (r + 1LL) * (r + 1LL) / (given * given)));
          };
          const pl::index_t first = rank == 0 ? 0 : end_of(rank - 1);
          return block{first, end_of(rank) - first};
        }) {}

  template <class Block>
  declared(const mesh_data& d, pm::values_from from, Block block_of) : mesh(from) {
    const auto& m = d.m;
    const block b[3] = {block_of(m.sizes[0]), block_of(m.sizes[1]), block_of(m.sizes[2])};
    // The values of set s's block, `per` to an element.
    const auto values = [&](int s, const auto& v, std::size_t per) {
      return std::span(v).subspan(static_cast<std::size_t>(b[s].first) * per,
                                  static_cast<std::size_t>(b[s].count) * per);
    };
    zeros.assign(static_cast<std::size_t>(m.sizes[0]), 0);
    cells = mesh.set(b[0].count, "cells");
    edges = mesh.set(b[1].count, "edges");
    nodes = mesh.set(b[2].count, "nodes");
    edge_cells = mesh.map(edges, cells, 2, values(1, m.edge_cells, 2), "edge_cells");
    edge_nodes = mesh.map(edges, nodes, 2, values(1, m.edge_nodes, 2), "edge_nodes");
    cell_nodes = mesh.map(cells, nodes, 3, values(0, m.cell_nodes, 3), "cell_nodes");
    u = mesh.dat<i64, 1>(nodes, values(2, d.node_values, 1), "u");
    q = mesh.dat<i64, 1>(cells, values(0, d.cell_values, 1), "q");
    res = mesh.dat<i64, 1>(cells, values(0, zeros, 1), "res");
    p = mesh.dat<double, 2>(nodes, values(2, d.node_pairs, 2), "p");
    w = mesh.dat<i64, 1>(edges, values(1, d.edge_values, 1), "w");
    centres = mesh.dat<double, 2>(cells, values(0, d.cell_centres, 2), "centres");
    cells_block = b[0];
  }
  block cells_block;
};

// The loops on this rank's share give the serial values: gathered on rank 0, and in each rank's
// share. Collective.
void check_distributed_loops(const pl::Runtime& rt, handles& h, const results& expected) {
  const int rank = pm::rank_of(MPI_COMM_WORLD);
  CHECK(h.cells.distribution() != nullptr);
  const results got = run_loops(rt, h);
  CHECK(got.sum == expected.sum);
  CHECK(got.smallest == expected.smallest);
  CHECK(got.largest == expected.largest);
  CHECK(got.edge_sum == expected.edge_sum);
  CHECK(got.edge_min == expected.edge_min);
  // Halves of integers, summed in another order: exact still.
  CHECK(got.p_sum == expected.p_sum);
  const auto u = pm::gather(h.u), q = pm::gather(h.q), res = pm::gather(h.res);
  const auto p = pm::gather(h.p);
  const auto w = pm::gather(h.w);
  if (rank == 0) {
    CHECK(u == expected.u);
    CHECK(q == expected.q);
    CHECK(res == expected.res);
    CHECK(p == expected.p);
    CHECK(w == expected.w);
  } else {
    CHECK(u.empty());
  }
  // Each rank's share in global numbering: the owned cells' values are the serial ones, and
  // so are all of u's on the rank (its halo was exchanged after its last change); the owned
  // parts of all ranks number every cell once.
  const std::span<const pl::index_t> numbers = pm::global_numbers(h.cells);
  CHECK(numbers.size() == static_cast<std::size_t>(h.cells.size()));
  std::vector<int> owners(static_cast<std::size_t>(h.cells.global_size()));
  int wrong = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(h.cells.owned()); ++i) {
    const auto g = static_cast<std::size_t>(numbers[i]);
    ++owners[g];
    wrong += h.q.host()[i] != expected.q[g] || h.res.host()[i] != expected.res[g] ? 1 : 0;
  }
  const std::span<const pl::index_t> node_numbers = pm::global_numbers(h.nodes);
  for (std::size_t i = 0; i < node_numbers.size(); ++i) {
    wrong += h.u.host()[i] != expected.u[static_cast<std::size_t>(node_numbers[i])] ? 1 : 0;
  }
  CHECK(wrong == 0);
  pm::check(
      MPI_Allreduce(MPI_IN_PLACE, owners.data(), static_cast<int>(owners.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD),
      "MPI_Allreduce");
  CHECK(std::count(owners.begin(), owners.end(), 1) == h.cells.global_size());
}

// A way of distributing the mesh.
struct way {
  std::string what;
  pm::partitioning how;
  pm::local_order order = pm::local_order::locality;
};

// Whether each region of `set` on this rank is in global order.
bool regions_in_global_order(const pl::Set& set) {
  const pl::detail::set_distribution& d = *set.distribution();
  bool sorted = true;
  pl::index_t begin = 0;
  for (const pl::index_t end : {d.core_end, d.owned_end, d.exec_end, set.size()}) {
    sorted = sorted && std::is_sorted(d.global.begin() + begin, d.global.begin() + end);
    begin = end;
  }
  return sorted;
}

// The declared mesh distributed each of `ways` and run: the serial values. Collective.
void check_partitionings(const declared& decl, const std::vector<way>& ways, const results& expected) {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  for (const auto& [what, how, order] : ways) {
    INFO("rank " << rank << " of " << ranks << ", partitioned " << what << ", on " << pl::backend_name(rt.kind()));
    const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, how.ordered(order));
    handles h{local[decl.cells],      local[decl.edges],      local[decl.nodes], local[decl.edge_cells],
              local[decl.edge_nodes], local[decl.cell_nodes], local[decl.u],     local[decl.q],
              local[decl.res],        local[decl.p],          local[decl.w]};
    CHECK(h.cells.global_size() == static_cast<pl::index_t>(expected.q.size()));
    // Ordered for locality, a random mesh's regions of a few dozen cells are not by chance in
    // global order.
    if (order == pm::local_order::global) CHECK(regions_in_global_order(h.cells));
    if (order == pm::local_order::locality && h.cells.owned() > 40) CHECK(!regions_in_global_order(h.cells));
    check_distributed_loops(rt, h, expected);
  }
}

}  // namespace

TEST_CASE("loops on a distributed mesh give the serial values, halos exchanged and reductions combined", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  const results expected = serial(d);
  declared decl(d, rank == 0);
  std::mt19937 rng(3);
  const std::vector<std::vector<int>> random = parloop_test::random_owners(d.m, ranks, rng);
  const std::vector<way> ways{
      {"by graph", pm::partitioning::by_graph(decl.edge_cells)},
      {"by graph, each rank's regions in global order", pm::partitioning::by_graph(decl.edge_cells),
       pm::local_order::global},
      {"by coordinates", pm::partitioning::by_coordinates(decl.centres)},
      {"at random, the last rank owning nothing", pm::partitioning::by_owners(decl.cells, random[0])}};
  check_partitionings(decl, ways, expected);
}

TEST_CASE("a mesh given rank by rank, each rank its block, gives the serial values", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  const results expected = serial(d);
  declared decl(d, rank, ranks);
  std::mt19937 rng(5);
  const std::vector<int> random = parloop_test::random_owners(d.m, ranks, rng)[0];
  const std::vector<int> my_owners(random.begin() + decl.cells_block.first,
                                   random.begin() + decl.cells_block.first + decl.cells_block.count);
  const std::vector<way> ways{
      {"by graph", pm::partitioning::by_graph(decl.edge_cells)},
      {"by coordinates", pm::partitioning::by_coordinates(decl.centres), pm::local_order::global},
      {"by the owners each rank gives for its block", pm::partitioning::by_owners(decl.cells, my_owners)}};
  check_partitionings(decl, ways, expected);
}

namespace {
// The elements whose number in `numbers` (an element's global number, or itself) is even.
std::vector<pl::index_t> even_numbered(std::span<const pl::index_t> numbers) {
  std::vector<pl::index_t> out;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (numbers[i] % 2 == 0) out.push_back(static_cast<pl::index_t>(i));
  }
  return out;
}

// Loops over the edges and cells of even global number: increments through a map (whose exec
// halo runs), a direct update reading through a map, a sum and a minimum. Returns the
// reductions.
std::array<i64, 2> run_subset_loops(const pl::Runtime& rt, handles& h, const pl::Subset& edges,
                                    const pl::Subset& cells) {
  pl::Global<i64> total(rt, 0, "total"), lowest(rt, 1000000, "lowest");
  const auto flux = pl::kernel("subset_flux_mpi", [](auto a, auto w, auto r0, auto r1, auto t, auto lo) {
    r0 += a * 2 + w;
    r1 -= a;
    t += w;
    lo = pl::min(lo, w - a);
  });
  const auto bump = pl::kernel("subset_bump_mpi", [](auto q, auto u0) { q = q * 3 + u0; });
  for (int step = 0; step < 2; ++step) {
    pl::par_loop(flux, edges, h.u(pl::READ, h.edge_nodes, 0), h.w(pl::READ), h.res(pl::INC, h.edge_cells, 0),
                 h.res(pl::INC, h.edge_cells, 1), total(pl::INC), lowest(pl::MIN));
    pl::par_loop(bump, cells, h.q(pl::RW), h.u(pl::READ, h.cell_nodes, 0));
  }
  return {total.value(), lowest.value()};
}
}  // namespace

TEST_CASE("loops over subsets of a distributed mesh give the serial values", "[mpi][subset]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  const auto& m = d.m;
  // In one process: every element's number is its global one.
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  handles serial_h = whole_mesh(host, d);
  const auto identity = [](pl::index_t n) {
    std::vector<pl::index_t> v(static_cast<std::size_t>(n));
    for (pl::index_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
    return v;
  };
  const std::array<i64, 2> want =
      run_subset_loops(host, serial_h, pl::Subset(serial_h.edges, even_numbered(identity(m.sizes[1]))),
                       pl::Subset(serial_h.cells, even_numbered(identity(m.sizes[0]))));
  const std::vector<i64> want_res(serial_h.res.host().begin(), serial_h.res.host().end());
  const std::vector<i64> want_q(serial_h.q.host().begin(), serial_h.q.host().end());

  declared decl(d, rank == 0);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  INFO("rank " << rank << " of " << ranks << " on " << pl::backend_name(rt.kind()));
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  handles h{local[decl.cells],      local[decl.edges],      local[decl.nodes], local[decl.edge_cells],
            local[decl.edge_nodes], local[decl.cell_nodes], local[decl.u],     local[decl.q],
            local[decl.res],        local[decl.p],          local[decl.w]};
  // Each rank's subsets: its local elements of even global number, halos included, as PyOP2's
  // subsets of a distributed set are given.
  const pl::Subset even_edges(h.edges, even_numbered(pm::global_numbers(h.edges)), "even edges");
  const pl::Subset even_cells(h.cells, even_numbered(pm::global_numbers(h.cells)), "even cells");
  // The owned parts of the ranks' subsets hold every even cell once.
  const pl::index_t owned = even_cells.owned();
  CHECK(owned <= even_cells.size());
  pl::index_t all_owned = 0;
  pm::check(MPI_Allreduce(&owned, &all_owned, 1, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  CHECK(all_owned == (m.sizes[0] + 1) / 2);
  CHECK(run_subset_loops(rt, h, even_edges, even_cells) == want);
  const auto res = pm::gather(h.res), q = pm::gather(h.q);
  if (rank == 0) {
    CHECK(res == want_res);
    CHECK(q == want_q);
  }
}

TEST_CASE("a global mesh keeps what it is given: temporaries' values arrive on every rank", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  constexpr pl::index_t n = 1000;
  // Each value a function of its element, from vectors that are gone before distribution; the
  // heap is churned in between, so that memory freed and reused would show other values.
  const auto numbered = [](pl::index_t count, double scale) {
    std::vector<double> v(static_cast<std::size_t>(count));
    for (pl::index_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = scale * i;
    return v;
  };
  for (const pm::values_from from : {pm::values_from::root, pm::values_from::each_rank}) {
    const bool whole = from == pm::values_from::root;
    const pl::index_t mine = whole ? (rank == 0 ? n : 0) : n;
    const pl::index_t first = whole ? 0 : rank * n;
    pm::global_mesh g(from);
    const auto nodes = g.set(mine, "nodes"), pairs = g.set(mine, "pairs");
    std::vector<pl::index_t> rows(static_cast<std::size_t>(mine));
    for (pl::index_t i = 0; i < mine; ++i) rows[static_cast<std::size_t>(i)] = first + i;
    g.map(pairs, nodes, 1, std::vector<pl::index_t>(rows), "to_node");
    const auto x = g.dat<double, 1>(nodes, numbered(mine, 1.0), "x");
    const auto y = g.dat<double, 1>(pairs, std::span<const double>(numbered(mine, 2.0)), "y");
    for (int churn = 0; churn < 64; ++churn) {
      std::vector<double> garbage(static_cast<std::size_t>(n), -1.0);
      CHECK(garbage.back() == -1.0);
    }
    const pl::index_t total = whole ? n : n * ranks;
    const auto expected = [&](double scale) {
      std::vector<double> v(static_cast<std::size_t>(total));
      for (pl::index_t i = 0; i < total; ++i) v[static_cast<std::size_t>(i)] = scale * (whole ? i : i % n);
      return v;
    };
    INFO("rank " << rank << " of " << ranks << (whole ? ", from the root" : ", from each rank"));
    const pm::distributed_mesh local(rt, MPI_COMM_WORLD, g, pm::partitioning::by_coordinates(x));
    const auto gx = pm::gather(local[x]), gy = pm::gather(local[y]);
    if (rank == 0) {
      CHECK(gx == expected(1.0));
      CHECK(gy == expected(2.0));
    }
  }
}

TEST_CASE("a share that does not fit its block is refused on every rank, naming the rank", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  // Two elements a rank, and the last rank gives one map value too few.
  pm::global_mesh mesh(pm::values_from::each_rank);
  const std::vector<pl::index_t> rows{0, 1}, short_rows{0};
  const auto a = mesh.set(2, "a"), b = mesh.set(2, "b");
  const auto m = mesh.map(a, b, 1, rank == ranks - 1 ? std::span(short_rows) : std::span(rows), "m");
  CHECK_THROWS_WITH(pm::distributed_mesh(rt, MPI_COMM_WORLD, mesh, pm::partitioning::by_graph(m)),
                    rank == ranks - 1
                        ? Catch::Contains(fmt::format("distribute: rank {}: map 'm' has 1 values for its "
                                                      "block of 2 elements of arity 1",
                                                      rank))
                        : Catch::Contains(fmt::format("rank {}'s share of the mesh does not fit", ranks - 1)));
  // Values in global numbering, past the set the blocks make: each rank names its own row.
  pm::global_mesh far(pm::values_from::each_rank);
  const std::vector<pl::index_t> past{0, 2 * ranks};
  const auto fa = far.set(2, "a"), fb = far.set(2, "b");
  const auto fm = far.map(fa, fb, 1, past, "m");
  CHECK_THROWS_WITH(
      pm::distributed_mesh(rt, MPI_COMM_WORLD, far, pm::partitioning::by_graph(fm)),
      Catch::Contains(fmt::format("distribute: rank {}: map 'm': value {} (row 1 of its block, slot 0) is "
                                  "outside set 'b' of {} elements",
                                  rank, 2 * ranks, 2 * ranks)));
  if (ranks > 1) {
    // Owners for their blocks from some ranks only.
    pm::global_mesh good(pm::values_from::each_rank);
    const auto ga = good.set(2, "a"), gb = good.set(2, "b");
    const auto gm = good.map(ga, gb, 1, rows, "m");
    CHECK_THROWS_WITH(
        pm::distributed_mesh(rt, MPI_COMM_WORLD, good,
                             rank == 0 ? pm::partitioning::by_owners(ga, {0, 0}) : pm::partitioning::by_graph(gm)),
        Catch::Contains("with values_from::each_rank every rank partitions alike"));
    // The root's mesh and shares are two declarations: ranks that mix them are told so.
    pm::global_mesh mixed(rank == 0 ? pm::values_from::root : pm::values_from::each_rank);
    const auto ma = mixed.set(2, "a"), mb = mixed.set(2, "b");
    const auto mm = mixed.map(ma, mb, 1, rows, "m");
    CHECK_THROWS_WITH(pm::distributed_mesh(rt, MPI_COMM_WORLD, mixed, pm::partitioning::by_graph(mm)),
                      Catch::Contains("the ranks declare different meshes"));
  }
}

TEST_CASE("a distributed loop refuses a range and dats of sets that are not distributed", "[mpi]") {
  const mesh_data d;
  declared decl(d, pm::rank_of(MPI_COMM_WORLD) == 0);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  const pl::Set cells = local[decl.cells];
  pl::Dat<i64> q = local[decl.q];
  const auto twice = pl::kernel("twice", [](auto v) { v = v * 2; });
  CHECK_THROWS_WITH(pl::par_loop(twice, cells, pl::range{0, 1}, q(pl::RW)),
                    Catch::Contains("set 'cells' is distributed over ranks") && Catch::Contains("takes no range"));
  // Even the whole range, named: the refusal is the same on every rank.
  CHECK_THROWS_WITH(pl::par_loop(twice, cells, pl::range{0, cells.size()}, q(pl::RW)),
                    Catch::Contains("takes no range"));
  // Edges that write one cell each through a map whose targets repeat: only the ranks owning such
  // a cell see it, and every rank refuses the loop.
  const auto store = pl::kernel("store", [](auto v) { v = 1; });
  CHECK_THROWS_WITH(pl::par_loop(store, local[decl.edges], q(pl::WRITE, local[decl.edge_cells], 0)),
                    Catch::Contains("their stores would race") || Catch::Contains("refused on another rank"));
  const pl::Set plain(rt, cells.size(), "plain");
  CHECK_THROWS_WITH(pm::global_numbers(plain), Catch::Contains("set 'plain' is not distributed over ranks"));
  pl::Dat<i64> other(plain, "other");
  CHECK_THROWS_WITH(pl::par_loop(twice, cells, other(pl::RW)),
                    Catch::Contains("dat 'other' is on set 'plain', which is not distributed over ranks"));
  CHECK_THROWS_WITH(pl::par_loop(twice, plain, q(pl::RW)),
                    Catch::Contains("dat 'q' is on set 'cells', which is distributed over ranks"));
}

TEST_CASE("a distributed loop that throws leaves the globals it reduces into as they were, on every rank", "[mpi]") {
  const mesh_data d;
  declared decl(d, pm::rank_of(MPI_COMM_WORLD) == 0);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  const pl::Set cells = local[decl.cells];
  const pl::Dat<double, 2> pair(cells, "pair");
  const pl::Dat<std::int32_t> which(cells, "which");
  pl::Global<double> total(rt, 5.0, "total"), lo(rt, 3.0, "lo");
  // Every cell asks for component 2 of 2: each rank throws while its owned cells run.
  const auto bad = pl::kernel("bad_component", [](auto p, auto i, auto t, auto l) {
    t += p[i + 2];
    l = pl::min(l, p[0]);
  });
  const auto run_and_read = [&] {
    pl::par_loop(bad, cells, pair(pl::READ), which(pl::READ), total(pl::INC), lo(pl::MIN));
    (void)total.value();
  };
  CHECK_THROWS_WITH(run_and_read(), Catch::Contains("index 2 is out of range"));
  CHECK(total.value() == 5.0);
  CHECK(lo.value() == 3.0);
}

TEST_CASE("distribute refuses on every rank what the root cannot plan or what the ranks declare differently", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD);
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  {
    // The root's map reaches past its target set.
    pm::global_mesh mesh;
    const std::vector<pl::index_t> bad{0, 1, 7};
    const auto a = mesh.set(rank == 0 ? 3 : 0, "a"), b = mesh.set(rank == 0 ? 2 : 0, "b");
    const auto m =
        mesh.map(a, b, 1, rank == 0 ? std::span<const pl::index_t>(bad) : std::span<const pl::index_t>(), "m");
    CHECK_THROWS_WITH(pm::distributed_mesh(rt, MPI_COMM_WORLD, mesh, pm::partitioning::by_graph(m)),
                      rank == 0
                          ? Catch::Contains("map 'm': value 7 (element 2, slot 0) is outside set 'b' of 2 elements")
                          : Catch::Contains("rank 0 could not partition the mesh"));
  }
  if (pm::size_of(MPI_COMM_WORLD) > 1) {
    // Rank 1 names a set otherwise.
    pm::global_mesh mesh;
    const std::vector<pl::index_t> ok{0, 1, 1};
    const auto a = mesh.set(3, rank == 1 ? "A" : "a"), b = mesh.set(2, "b");
    const auto m = mesh.map(a, b, 1, ok, "m");
    CHECK_THROWS_WITH(pm::distributed_mesh(rt, MPI_COMM_WORLD, mesh, pm::partitioning::by_graph(m)),
                      Catch::Contains("the ranks declare different meshes"));
  }
}

TEST_CASE("one rank compiles a distributed loop's kernel and the others receive it", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  declared decl(d, rank == 0);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  pl::Dat<i64> q = local[decl.q], u = local[decl.u];
  const auto once = pl::kernel("compiled_once", [](auto q, auto a, auto b) { q = q * 3 + a - b * 7; });
  for (int call = 0; call < 2; ++call) {
    pl::par_loop(once, local[decl.cells], q(pl::RW), u(pl::READ, local[decl.cell_nodes], 0),
                 u(pl::READ, local[decl.cell_nodes], 2));
  }
  // Summed over the ranks: each rank has a cache folder of its own (main), so only a broadcast
  // can spare the others their compile.
  long long counts[2] = {static_cast<long long>(once.compiles()), static_cast<long long>(once.received())};
  pm::check(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  INFO("rank " << rank << " of " << ranks << " on " << pl::backend_name(rt.kind()));
  if (pl::runs_lambdas(rt.kind())) {
    CHECK(counts[0] == 0);  // the host and threads backends compile nothing
  } else {
    CHECK(counts[0] == 1);
    CHECK(counts[1] == ranks - 1);
  }
}

TEST_CASE("a kernel one rank holds from a loop of its own is agreed on with the ranks that lack it", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  declared decl(d, rank == 0);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  pl::Dat<i64> q = local[decl.q];
  const auto affine = pl::kernel("held_by_root", [](auto v) { v = v * 3 + 1; });
  // A step of rank 0's own, on a set of its own (a serial check, say): rank 0 holds the kernel.
  if (rank == 0) {
    const pl::Set plain(rt, 4, "plain");
    pl::Dat<i64> own(plain, std::vector<i64>{1, 2, 3, 4}, "own");
    pl::par_loop(affine, plain, own(pl::RW));
    CHECK(own.host()[3] == 13);
  }
  for (int call = 0; call < 2; ++call) pl::par_loop(affine, local[decl.cells], q(pl::RW));
  const std::vector<i64> got = pm::gather(q);
  if (rank == 0) {
    std::vector<i64> expected = d.cell_values;
    for (i64& v : expected) v = (v * 3 + 1) * 3 + 1;
    CHECK(got == expected);
  }
  long long counts[2] = {static_cast<long long>(affine.compiles()), static_cast<long long>(affine.received())};
  pm::check(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  INFO("rank " << rank << " of " << ranks << " on " << pl::backend_name(rt.kind()));
  if (!pl::runs_lambdas(rt.kind())) {
    // Rank 0's compile, for its own loop, is the job's only one.
    CHECK(counts[0] == 1);
    CHECK(counts[1] == ranks - 1);
  }
}

TEST_CASE("an autotuned distributed loop launches as rank 0 chose, on every rank", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  const results expected = serial(d);
  declared decl(d, rank == 0);
  pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  rt.set_autotune(true);
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  handles h{local[decl.cells],      local[decl.edges],      local[decl.nodes], local[decl.edge_cells],
            local[decl.edge_nodes], local[decl.cell_nodes], local[decl.u],     local[decl.q],
            local[decl.res],        local[decl.p],          local[decl.w]};
  INFO("rank " << rank << " of " << ranks << " on " << pl::backend_name(rt.kind()));
  check_distributed_loops(rt, h, expected);
  // One loop of a kernel held here: rank 0 alone times the candidates, and its winner's binary
  // is the one the others receive.
  pl::Dat<i64> q = local[decl.q];
  const auto tuned = pl::kernel("tuned_over_ranks", [](auto v, auto r) { v = v * 3 - r; });
  for (int call = 0; call < 2; ++call) pl::par_loop(tuned, local[decl.cells], q(pl::RW), h.res(pl::READ));
  long long counts[3] = {static_cast<long long>(tuned.cache().tunings()), static_cast<long long>(tuned.received()),
                         rank == 0 ? static_cast<long long>(tuned.cache().tunings()) : 0};
  pm::check(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  if (pl::runs_lambdas(rt.kind())) {
    CHECK(counts[0] == 0);  // the host and threads backends have nothing to choose
  } else {
    CHECK(counts[0] == 1);
    CHECK(counts[2] == 1);
    CHECK(counts[1] == ranks - 1);
  }
}

TEST_CASE("ranks on the host and ranks on devices are refused together", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD);
  const pl::Runtime tested = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  // Alike on every rank: with the host or threads tested, nothing mixes.
  if (pl::runs_lambdas(tested.kind()) || pm::size_of(MPI_COMM_WORLD) == 1) return;
  const mesh_data d;
  declared decl(d, rank == 0);
  const pl::Runtime rt = rank == 0 ? pl::Runtime::open(pl::backend_kind::host) : tested;
  CHECK_THROWS_WITH(pm::distributed_mesh(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells)),
                    Catch::Contains("the ranks run either all on the host (or threads) or all on devices"));
}

TEST_CASE("PARLOOP_MPI_CHECK: ranks that made other calls are told so, on every rank", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD), ranks = pm::size_of(MPI_COMM_WORLD);
  const mesh_data d;
  declared decl(d, rank == 0);
  // PARLOOP_MPI_CHECK=1, without the environment.
  pl::settings checked = pl::settings::from_environment();
  checked.backend = parloop_test::tested_backend(pl::backend_kind::host);
  checked.mpi_check = true;
  const pl::Runtime rt = pl::Runtime::open(checked);
  const pm::distributed_mesh local(rt, MPI_COMM_WORLD, decl.mesh, pm::partitioning::by_graph(decl.edge_cells));
  const pl::Set cells = local[decl.cells];
  const pl::Map cell_nodes = local[decl.cell_nodes];
  pl::Dat<i64> q = local[decl.q], u = local[decl.u];
  const auto spread = pl::kernel("spread", [](auto q, auto a, auto b) { q = q + a - b; });
  const auto run = [&] {
    pl::par_loop(spread, cells, q(pl::RW), u(pl::READ, cell_nodes, 0), u(pl::READ, cell_nodes, 1));
  };
  // The same calls everywhere: checked, and run.
  CHECK_NOTHROW(run());
  CHECK_NOTHROW(run());
  INFO("rank " << rank << " of " << ranks);
  if (ranks == 1) return;
  // The last rank alone writes u on the host: its halo is stale there only.
  if (rank == ranks - 1) u.host_view(pl::RW)[0] += 1;
  CHECK_THROWS_WITH(run(),
                    Catch::Contains("par_loop 'spread' over 'cells': the halo of 'u' is stale on some ranks only") &&
                        Catch::Contains("PARLOOP_MPI_CHECK"));
  // Another loop on rank 0 at the same call.
  const auto twice = pl::kernel("twice", [](auto v) { v = v * 2; });
  CHECK_THROWS_WITH(rank == 0 ? pl::par_loop(twice, cells, q(pl::RW)) : run(),
                    Catch::Contains("the ranks are not all running this loop here"));
}

#if PARLOOP_HAVE_HDF5
// A mesh file read by every rank at once, each its own block (OP2's split), distributed and looped
// over, gives the serial sums; the result checkpointed in global numbering reads back the same on
// the root, and restarted into another dat on the ranks.
TEST_CASE("an HDF5 mesh read in blocks by every rank runs as one process; a checkpoint restarts it", "[mpi]") {
  const int rank = pm::rank_of(MPI_COMM_WORLD);
  const pl::Runtime rt = pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host));
  const mesh_data d;
  // Rank 0 writes the mesh in a folder of its own; the others learn its name.
  std::string folder(256, '\0');
  if (rank == 0) {
    std::string made = (std::filesystem::temp_directory_path() / "parloop-hdf5-XXXXXX").string();
    REQUIRE(::mkdtemp(made.data()) != nullptr);
    std::copy(made.begin(), made.end(), folder.begin());
    const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
    const pl::Set cells(host, d.m.sizes[0], "cells"), edges(host, d.m.sizes[1], "edges");
    pl::hdf5::File file = pl::hdf5::File::create(made + "/mesh.h5");
    pl::hdf5::write(file, cells);
    pl::hdf5::write(file, edges);
    pl::hdf5::write(file, pl::Map(edges, cells, 2, d.m.edge_cells, "edge_cells"));
    pl::hdf5::write(file, pl::Dat<i64>(cells, d.cell_values, "q"));
    file.close();
  }
  pm::check(MPI_Bcast(folder.data(), static_cast<int>(folder.size()), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  folder.resize(folder.find('\0'));
  pm::global_mesh g(pm::values_from::each_rank);
  const pl::hdf5::File file = pl::hdf5::File::open(folder + "/mesh.h5");
  pl::hdf5::mesh_reader read(file, g, MPI_COMM_WORLD);
  const auto cells = read.set("cells"), edges = read.set("edges");
  const auto edge_cells = read.map("edge_cells", edges, cells, 2);
  const auto q = read.dat<i64, 1>("q", cells);
  const pm::distributed_mesh mine(rt, MPI_COMM_WORLD, g, pm::partitioning::by_graph(edge_cells));
  pl::Dat<i64> res(mine[cells], "res");
  pl::par_loop(pl::kernel("hdf5_edge_difference",
                          [](auto qa, auto qb, auto ra, auto rb) {
                            ra += qb - qa;
                            rb -= qb - qa;
                          }),
               mine[edges], mine[q](pl::READ, mine[edge_cells], 0), mine[q](pl::READ, mine[edge_cells], 1),
               res(pl::INC, mine[edge_cells], 0), res(pl::INC, mine[edge_cells], 1));
  std::vector<i64> serial(static_cast<std::size_t>(d.m.sizes[0]), 0);
  for (std::size_t e = 0; e < static_cast<std::size_t>(d.m.sizes[1]); ++e) {
    const auto a = static_cast<std::size_t>(d.m.edge_cells[2 * e]),
               b = static_cast<std::size_t>(d.m.edge_cells[2 * e + 1]);
    serial[a] += d.cell_values[b] - d.cell_values[a];
    serial[b] -= d.cell_values[b] - d.cell_values[a];
  }
  const std::vector<i64> gathered = pm::gather(res);
  if (rank == 0) CHECK(gathered == serial);

  // With it, a dat of three doubles a cell made from each element's global number.
  const pl::detail::set_distribution& spread = *mine[cells].distribution();
  std::vector<double> by_number;
  for (const pl::index_t g : spread.global) by_number.insert(by_number.end(), {0.5 * g, -1.0 * g, g + 0.25});
  const pl::Dat<double, 3> numbered(mine[cells], by_number, "numbered");
  const std::string saved = folder + "/checkpoint.h5";
  pl::hdf5::checkpoint(MPI_COMM_WORLD, saved, res, numbered);
  if (rank == 0) {
    const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
    const pl::hdf5::File file = pl::hdf5::File::open(saved);
    const pl::Set all_cells(host, d.m.sizes[0]);
    const auto back = pl::hdf5::read_dat<i64>(file, "res", all_cells);
    CHECK(std::vector<i64>(back.host().begin(), back.host().end()) == serial);
    const auto numbered_back = pl::hdf5::read_dat<double, 3>(file, "numbered", all_cells);
    const auto numbers = numbered_back.host();
    for (std::size_t g = 0; g < numbers.size() / 3; ++g) {
      const double n = static_cast<double>(g);
      CHECK(std::vector<double>(numbers.begin() + 3 * g, numbers.begin() + 3 * g + 3) ==
            std::vector<double>{0.5 * n, -n, n + 0.25});
    }
    CHECK_FALSE(std::filesystem::exists(saved + ".parloop-partial"));
  }
  // A checkpoint that cannot be made is refused on every rank, none left waiting.
  CHECK_THROWS_AS(pl::hdf5::checkpoint(MPI_COMM_WORLD, folder + "/no-such-folder/c.h5", res), pl::file_error);
  pl::Dat<i64> again(mine[cells], "res");
  pl::hdf5::restart(MPI_COMM_WORLD, saved, again);
  const std::vector<i64> restarted = pm::gather(again);
  if (rank == 0) CHECK(restarted == serial);
  pl::Dat<i64> missing(mine[cells], "missing");
  CHECK_THROWS_WITH(pl::hdf5::restart(MPI_COMM_WORLD, saved, missing), Catch::Contains("no dataset 'missing'"));
  pm::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (rank == 0) std::filesystem::remove_all(folder);
}
#endif

int main(int argc, char** argv) {
  return pm::run(argc, argv, [&] {
    // Every rank alike: a backend this machine lacks skips the run (77), saying why.
    try {
      static_cast<void>(pl::Runtime::open(parloop_test::tested_backend(pl::backend_kind::host)));
    } catch (const pl::backend_unavailable& e) {
      if (pm::rank_of(MPI_COMM_WORLD) == 0) std::printf("skipped: %s\n", e.what());
      return 77;
    }
    // Each rank's result: a failure on one is a failure of the job.
    // Each rank its own fresh disk cache, as ranks on nodes without a shared folder have.
    std::string folder(256, '\0');
    if (pm::rank_of(MPI_COMM_WORLD) == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "parloop-mpi-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) throw pl::error("test_mpi_loops: no temporary folder");
      folder.replace(0, pattern.size(), pattern);
    }
    pm::check(MPI_Bcast(folder.data(), static_cast<int>(folder.size()), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    folder.resize(folder.find('\0'));
    const std::string mine = folder + "/rank" + std::to_string(pm::rank_of(MPI_COMM_WORLD));
    ::setenv("PARLOOP_CACHE_DIR", mine.c_str(), 1);
    // Each distributed loop traces its kernel again and compares (a captured value that drifts).
    ::setenv("PARLOOP_CHECK_TRACES", "1", 0);
    const int failed = Catch::Session().run(argc, argv);
    pm::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (pm::rank_of(MPI_COMM_WORLD) == 0) std::filesystem::remove_all(folder);
    int any = failed;
    pm::check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return any == 0 ? 0 : 1;
  });
}
