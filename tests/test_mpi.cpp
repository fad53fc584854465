// SPDX-License-Identifier: MIT
// The distribution over real MPI ranks (run with mpirun -np 1, 2 and 4): rank 0 plans a random
// mesh partitioned by the default graph partitioner (and at random with the last rank owning
// nothing) and sends each rank its plan, which equals the one it computes itself; a halo exchange
// brings every halo element its owner's values; a loop over owned and exec halo edges after the
// exchange, gathered on rank 0 in global numbering, equals the serial loop exactly. Checks only
// (no REQUIRE): a rank leaving a test case early would leave the others waiting in a collective.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <numeric>
#include <vector>

#include <parloop/mpi/gather.hpp>
#include <parloop/mpi/link.hpp>
#include <parloop/mpi/owners.hpp>
#include <parloop/mpi/partition.hpp>
#include <parloop/mpi/scatter.hpp>
#include <parloop/mpi/session.hpp>

#include "mpi_mesh.hpp"

namespace pl = parloop;
namespace pm = parloop::mpi;

namespace {

// The same on every rank: each process draws the mesh from the same seed.
struct distributed {
  distributed() : rank(pm::rank_of(MPI_COMM_WORLD)), ranks(pm::size_of(MPI_COMM_WORLD)) {}
  int rank, ranks;
  parloop_test::mesh m = parloop_test::random_mesh(400, 900, 350);

  // Owners by the default partitioner (cells, the others derived), or at random without the last
  // rank where there are several.
  std::vector<std::vector<int>> owners(bool at_random) const {
    if (!at_random) {
      const auto cells = pm::partition_graph(pm::joined_by(m.edge_cells, 2, m.sizes[0]), ranks);
      return pm::derive_owners(m.sizes, m.maps(), 0, cells, ranks);
    }
    std::mt19937 rng(11);
    return parloop_test::random_owners(m, ranks, rng);
  }
};

// The halo of `values` (`dim` per element of `set`) over the link, packed and unpacked by the
// plan's lists as a distributed loop's exchange does on its device.
template <class T>
void exchange(pm::mpi_link& link, const pm::rank_set& set, std::vector<T>& values, int dim) {
  const auto flatten = [&](const std::vector<std::vector<pl::index_t>>& lists, std::vector<T>& buffer,
                           std::vector<std::size_t>& offsets, bool pack) {
    offsets.push_back(0);
    for (const auto& list : lists) {
      for (const pl::index_t i : list) {
        for (int k = 0; k < dim; ++k) buffer.push_back(pack ? values[static_cast<std::size_t>(i * dim + k)] : T{});
      }
      offsets.push_back(buffer.size() * sizeof(T));
    }
  };
  std::vector<T> sent, received;
  std::vector<std::size_t> send_offsets, receive_offsets;
  flatten(set.export_to, sent, send_offsets, true);
  flatten(set.import_from, received, receive_offsets, false);
  link.start(std::as_bytes(std::span<const T>(sent)), send_offsets, std::as_writable_bytes(std::span<T>(received)),
             receive_offsets)
      ->wait();
  std::size_t at = 0;
  for (const auto& list : set.import_from) {
    for (const pl::index_t i : list) {
      for (int k = 0; k < dim; ++k) values[static_cast<std::size_t>(i * dim + k)] = received[at++];
    }
  }
}

}  // namespace

TEST_CASE("plans sent from rank 0 arrive whole; exchanges fill every halo; a loop gives the serial sums", "[mpi]") {
  const distributed d;
  pm::mpi_link link(MPI_COMM_WORLD);
  for (const bool at_random : {false, true}) {
    INFO("rank " << d.rank << " of " << d.ranks << (at_random ? ", owners at random" : ", partitioned"));
    const auto owners = d.owners(at_random);
    const auto maps = d.m.maps();
    const std::vector<pm::rank_plan> all = pm::plan_halos(d.m.sizes, maps, owners, d.ranks);
    const pm::rank_plan mine = pm::scatter_plans(MPI_COMM_WORLD, d.rank == 0 ? all : std::vector<pm::rank_plan>{});
    CHECK(mine == all[static_cast<std::size_t>(d.rank)]);

    // Three doubles per node, each naming its element: owned values set, halo values NaN.
    const pm::rank_set& nodes = mine.sets[2];
    std::vector<double> values(static_cast<std::size_t>(nodes.size()) * 3, std::nan(""));
    const auto value = [](pl::index_t g, int k) { return 10.0 * g + k; };
    for (pl::index_t i = 0; i < nodes.owned_end; ++i) {
      for (int k = 0; k < 3; ++k)
        values[static_cast<std::size_t>(i) * 3 + static_cast<std::size_t>(k)] =
            value(nodes.global[static_cast<std::size_t>(i)], k);
    }
    exchange(link, nodes, values, 3);
    int wrong = 0;
    for (pl::index_t i = 0; i < nodes.size(); ++i) {
      for (int k = 0; k < 3; ++k)
        wrong += values[static_cast<std::size_t>(i) * 3 + static_cast<std::size_t>(k)] !=
                 value(nodes.global[static_cast<std::size_t>(i)], k);
    }
    CHECK(wrong == 0);

    // The edge loop on each rank's share after an exchange of the node values; the cells gathered.
    const auto nodes0 = parloop_test::random_values<std::int64_t>(static_cast<std::size_t>(d.m.sizes[2]));
    std::vector<std::int64_t> local(static_cast<std::size_t>(nodes.size()), 0);
    for (pl::index_t i = 0; i < nodes.owned_end; ++i)
      local[static_cast<std::size_t>(i)] = nodes0[static_cast<std::size_t>(nodes.global[static_cast<std::size_t>(i)])];
    exchange(link, nodes, local, 1);
    const std::vector<std::int64_t> cells = parloop_test::rank_edge_sums(mine, local);
    const std::vector<std::int64_t> gathered =
        pm::gather_owned<std::int64_t>(MPI_COMM_WORLD, mine.sets[0], cells, 1, d.m.sizes[0]);
    if (d.rank == 0) {
      CHECK(gathered == parloop_test::serial_edge_sums(d.m, nodes0));
    } else {
      CHECK(gathered.empty());
    }
    // The same values in blocks of global numbers, uneven ones, a block a rank (the last may be
    // empty): each rank receives its own slice of the serial sums.
    std::vector<pl::index_t> starts{0};
    for (int r = 1; r < d.ranks; ++r) starts.push_back(d.m.sizes[0] * r / (d.ranks + 1));
    starts.push_back(d.m.sizes[0]);
    const std::vector<std::int64_t> block = pm::owned_to_blocks<std::int64_t>(MPI_COMM_WORLD, mine.sets[0].global,
                                                                              mine.sets[0].owned_end, cells, 1, starts);
    const std::vector<std::int64_t> serial = parloop_test::serial_edge_sums(d.m, nodes0);
    CHECK(block == std::vector<std::int64_t>(serial.begin() + starts[static_cast<std::size_t>(d.rank)],
                                             serial.begin() + starts[static_cast<std::size_t>(d.rank) + 1]));
  }
}

TEST_CASE("misuse is refused on every rank, none left waiting", "[mpi]") {
  const distributed d;
  const auto owners = d.owners(false);
  const auto maps = d.m.maps();
  const std::vector<pm::rank_plan> all = pm::plan_halos(d.m.sizes, maps, owners, d.ranks);
  // Rank 0 with a plan too few: every rank hears of it.
  std::vector<pm::rank_plan> short_of_one(all.begin(), all.end() - 1);
  CHECK_THROWS_WITH(pm::scatter_plans(MPI_COMM_WORLD, d.rank == 0 ? short_of_one : std::vector<pm::rank_plan>{}),
                    Catch::Contains(d.rank == 0 ? "plans for" : "could not send the plans"));
  // Owned elements that do not add up to the set: refused on every rank.
  pm::rank_set nothing_owned = all[static_cast<std::size_t>(d.rank)].sets[0];
  nothing_owned.core_end = nothing_owned.owned_end = 0;
  const std::vector<std::int64_t> values(static_cast<std::size_t>(nothing_owned.size()), 1);
  CHECK_THROWS_WITH(pm::gather_owned<std::int64_t>(MPI_COMM_WORLD, nothing_owned, values, 1, d.m.sizes[0]),
                    Catch::Contains("do not own the 400 elements of the set exactly once"));
  // Blocks of global numbers (two ranks): refused on both where the owned elements do not add up.
  if (d.ranks == 2) {
    const std::vector<pl::index_t> blocks{0, d.m.sizes[0] / 2, d.m.sizes[0]};
    CHECK_THROWS_WITH(pm::owned_to_blocks<std::int64_t>(MPI_COMM_WORLD, nothing_owned.global, nothing_owned.owned_end,
                                                        values, 1, blocks),
                      Catch::Contains("do not own the 400 elements of the set exactly once"));
    // Every element claimed by both ranks: each block receives twice its count.
    pm::rank_set everything = nothing_owned;
    everything.global.resize(static_cast<std::size_t>(d.m.sizes[0]));
    std::iota(everything.global.begin(), everything.global.end(), pl::index_t{0});
    everything.owned_end = d.m.sizes[0];
    const std::vector<std::int64_t> all_values(everything.global.size(), 1);
    CHECK_THROWS_WITH(pm::owned_to_blocks<std::int64_t>(MPI_COMM_WORLD, everything.global, everything.owned_end,
                                                        all_values, 1, blocks),
                      Catch::Contains("exactly once"));
  }
  // A transfer whose offsets do not fit the link: refused before any message.
  pm::mpi_link link(MPI_COMM_WORLD);
  std::vector<std::byte> bytes(8);
  const std::vector<std::size_t> offsets{0, 4};
  CHECK_THROWS_WITH(link.start(bytes, offsets, bytes, offsets), Catch::Contains("a halo transfer of 8 and 8 bytes"));
}

int main(int argc, char** argv) {
  return pm::run(argc, argv, [&] {
    const int failed = Catch::Session().run(argc, argv);
    int any = 0;
    pm::check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return any == 0 ? 0 : 1;
  });
}
