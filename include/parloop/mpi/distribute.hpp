// SPDX-License-Identifier: MIT
// A program's global mesh distributed over the ranks of a communicator, as OP2 partitions one:
// every rank declares the same sets, maps and dats (the sizes and values are read on the root
// only, so only the root need read the mesh -- or each rank gives a block of each set, read in
// parallel, and the blocks are put together on the root); distributed_mesh partitions one set,
// derives the owners of the others, plans every rank's regions on the root, sends each rank its
// plan and its values, and gives back ordinary parloop handles: par_loop runs on them unchanged,
// with halos exchanged and reductions combined across the ranks (exec/distributed/distributed_loop.hpp).
// Each rank orders its elements within their regions for locality (mpi/region_order.hpp), unless
// told to keep the global order. gather() brings a dat back in global numbering;
// global_numbers() numbers each rank's share.
#pragma once

#include <mpi.h>

#include <any>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/any_array.hpp"
#include "parloop/core/dat.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/distributed/entry.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/gather.hpp"
#include "parloop/mpi/global_mesh.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/link.hpp"
#include "parloop/mpi/mesh_gathering.hpp"
#include "parloop/mpi/mesh_planning.hpp"
#include "parloop/mpi/partitioning.hpp"
#include "parloop/mpi/region_order.hpp"
#include "parloop/mpi/scatter.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

// This rank's share of a distributed mesh: ordinary handles on the runtime it was made for.
class distributed_mesh {
 public:
  // Collective over `user_comm`: every rank calls it with the mesh declared alike. Its messages
  // travel on the link's duplicate of it, apart from the program's own.
  distributed_mesh(const Runtime& rt, MPI_Comm user_comm, const global_mesh& given, const partitioning& given_how,
                   int root = 0)
      : link_(std::make_shared<mpi_link>(user_comm)) {
    const MPI_Comm comm = link_->comm();
    const int rank = link_->rank(), ranks = link_->ranks();
    if (root < 0 || root >= ranks)
      throw argument_error(parloop::detail::format("distribute: root {} of {} ranks", root, ranks));
    agree_on_backends(rt);
    agree_on_declarations(given, root);
    // A mesh given rank by rank is put together on the root, which plans it as one it had read.
    std::optional<detail::whole_mesh> gathered;
    if (given.from_ == values_from::each_rank)
      detail::mesh_gathering::put_together(gathered.emplace(), *link_, given, given_how, root);
    const global_mesh& mesh = gathered ? gathered->mesh : given;
    const partitioning& how = gathered ? gathered->how : given_how;
    // The root plans; every rank learns whether it could before any waits for a plan.
    std::vector<rank_plan> plans;
    std::vector<index_t> sizes(mesh.sets_.size());
    // The partitioned set, and whether each rank orders its regions from it for locality.
    std::array<int, 2> ordering{0, 0};
    std::string problem;
    if (rank == root) {
      try {
        for (std::size_t s = 0; s < sizes.size(); ++s) sizes[s] = mesh.sets_[s].size;
        ordering = {detail::mesh_planning::partitioned_set(mesh, how), how.order_ == local_order::locality ? 1 : 0};
        plans = detail::mesh_planning::plan(mesh, how, ordering[0], ranks);
      } catch (const error& e) {
        problem = e.message();
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    if (!link_->all(problem.empty())) {
      throw argument_error(rank == root
                               ? "distribute: " + problem
                               : parloop::detail::format("distribute: rank {} could not partition the mesh", root));
    }
    check(MPI_Bcast(sizes.data(), static_cast<int>(sizes.size()), MPI_INT32_T, root, comm), "MPI_Bcast");
    check(MPI_Bcast(ordering.data(), 2, MPI_INT, root, comm), "MPI_Bcast");
    rank_plan mine = scatter_plans(comm, plans, root);
    // Values arrive in the plan's order, by global number within each region.
    std::vector<std::vector<index_t>> reordered(mesh.sets_.size());
    // What each rank does with its plan alone may fail on that rank only (memory, a damaged
    // plan): every rank hears of it before any waits for a dat's values.
    std::string own_problem;
    try {
      if (mine.sets.size() != mesh.sets_.size() || mine.maps.size() != mesh.maps_.size()) {
        throw error(parloop::detail::format("a plan of {} sets and {} maps for a mesh of {} and {}", mine.sets.size(),
                                            mine.maps.size(), mesh.sets_.size(), mesh.maps_.size()));
      }
      if (ordering[1] != 0) {
        std::vector<global_map> shapes;
        for (const auto& m : mesh.maps_) shapes.push_back({m.map.from, m.map.to, m.map.arity, {}});
        reordered = order_regions(mine, shapes, ordering[0]);
      }
      for (std::size_t s = 0; s < mesh.sets_.size(); ++s) {
        sets_.emplace_back(rt, distribution_of(mine.sets[s], sizes[s]), mesh.sets_[s].name);
      }
      for (std::size_t m = 0; m < mesh.maps_.size(); ++m) {
        const auto& d = mesh.maps_[m];
        maps_.emplace_back(sets_[static_cast<std::size_t>(d.map.from)], sets_[static_cast<std::size_t>(d.map.to)],
                           d.map.arity, mine.maps[m], d.name);
      }
    } catch (const error& e) {
      own_problem = e.message();
    } catch (const std::exception& e) {
      own_problem = e.what();
    }
    if (!link_->all(own_problem.empty())) {
      throw error(own_problem.empty() ? "distribute: another rank could not take its share of the mesh"
                                      : parloop::detail::format("distribute: rank {}: {}", rank, own_problem));
    }
    for (std::size_t i = 0; i < mesh.dats_.size(); ++i) {
      const auto& d = mesh.dats_[i];
      const std::size_t width = scalar_bytes(d.type) * static_cast<std::size_t>(d.dim);
      std::vector<std::byte> mine_values = scatter_values(comm, plans, d.set, d.values, width, sizes, root, d.name);
      const std::vector<index_t>& order = reordered[static_cast<std::size_t>(d.set)];
      if (!order.empty()) {
        std::vector<std::byte> in_order(mine_values.size());
        parloop::detail::gather_rows(in_order.data(), mine_values.data(), width, order);
        mine_values = std::move(in_order);
      }
      dats_.push_back(d.make(sets_[static_cast<std::size_t>(d.set)], d.type, std::move(mine_values), d.name, d.dim));
    }
  }

  const Set& operator[](set_id s) const { return sets_.at(static_cast<std::size_t>(s.index)); }
  const Map& operator[](map_id m) const { return maps_.at(static_cast<std::size_t>(m.index)); }
  template <class T, int Dim>
  Dat<T, Dim> operator[](dat_id<T, Dim> d) const {
    return std::any_cast<Dat<T, Dim>>(dats_.at(static_cast<std::size_t>(d.index)));
  }
  // The storage of a dat declared with its type at run time (global_mesh's dat returning an int).
  parloop::detail::any_array array(int d) const {
    return std::any_cast<parloop::detail::any_array>(dats_.at(static_cast<std::size_t>(d)));
  }
  MPI_Comm comm() const { return link_->comm(); }

 private:
  // A rank on the host or threads backend runs a loop's lambda where a device rank takes part in
  // agreeing on its kernel with the others (exec/kernel/kernel_cache.hpp): ranks on the CPU and on
  // devices would wait for each other. Devices of different kinds agree (each compiles what it
  // cannot take), and so do host and threads ranks (neither agrees on anything).
  void agree_on_backends(const Runtime& rt) {
    std::int32_t on_host = runs_lambdas(rt.kind()) ? 1 : 0;
    link_->all_reduce(&on_host, 1, scalar_type::int32, access::inc);
    if (on_host != 0 && on_host != link_->ranks()) {
      throw argument_error(
          parloop::detail::format("distribute: {} of the {} ranks run on the host and the others on devices (rank {} "
                                  "on {}): the ranks run either all on the host (or threads) or all on devices "
                                  "(OpenCL and CUDA ones may mix)",
                                  on_host, link_->ranks(), link_->rank(), backend_name(rt.kind())));
    }
  }

  void agree_on_declarations(const global_mesh& mesh, int root) {
    std::string mine = mesh.declarations();
    auto length = static_cast<long long>(mine.size());
    check(MPI_Bcast(&length, 1, MPI_LONG_LONG, root, comm()), "MPI_Bcast");
    std::string roots(static_cast<std::size_t>(length), '\0');
    if (link_->rank() == root) roots = mine;
    if (length > std::numeric_limits<int>::max()) throw argument_error("distribute: the mesh declares too much");
    check(MPI_Bcast(roots.data(), static_cast<int>(length), MPI_CHAR, root, comm()), "MPI_Bcast");
    if (!link_->all(roots == mine)) {
      throw argument_error(parloop::detail::format(
          "distribute: the ranks declare different meshes (rank {} declares: {})", link_->rank(), mine));
    }
  }

  std::shared_ptr<const parloop::detail::set_distribution> distribution_of(const rank_set& rs,
                                                                           index_t global_size) const {
    auto d = std::make_shared<parloop::detail::set_distribution>();
    d->link = link_;
    d->core_end = rs.core_end;
    d->owned_end = rs.owned_end;
    d->exec_end = rs.exec_end;
    d->global = rs.global;
    d->global_size = global_size;
    const auto flatten = [](const std::vector<std::vector<index_t>>& by_rank, std::vector<index_t>& places,
                            std::vector<std::size_t>& offsets) {
      offsets.push_back(0);
      for (const auto& l : by_rank) {
        places.insert(places.end(), l.begin(), l.end());
        offsets.push_back(places.size());
      }
    };
    flatten(rs.export_to, d->exports, d->export_offsets);
    flatten(rs.import_from, d->imports, d->import_offsets);
    return d;
  }

  std::shared_ptr<mpi_link> link_;
  std::vector<Set> sets_;
  std::vector<Map> maps_;
  std::vector<std::any> dats_;
};

// The global number of each of this rank's elements of a distributed set, in local order: the
// first set.owned() are those it owns, then its halo's. With a dat's host values, this rank's
// share in global numbering (to write a file per rank, say). Valid while the set lives.
inline std::span<const index_t> global_numbers(const Set& set) {
  const parloop::detail::set_distribution* d = set.distribution();
  if (d == nullptr)
    throw argument_error(parloop::detail::format("global_numbers: set '{}' is not distributed over ranks", set.name()));
  return d->global;
}

// The owned values of a dat on a distributed set, in global numbering, on `root` (empty
// elsewhere). Collective over the set's communicator.
template <class T, int Dim>
std::vector<T> gather(const Dat<T, Dim>& dat, int root = 0) {
  const parloop::detail::set_distribution* d = dat.set().distribution();
  if (d == nullptr)
    throw argument_error(parloop::detail::format("gather: dat '{}' is not on a distributed set", dat.name()));
  const auto* link = dynamic_cast<const mpi_link*>(d->link.get());
  if (link == nullptr)
    throw argument_error(
        parloop::detail::format("gather: dat '{}' is distributed over another link than MPI", dat.name()));
  return gather_owned<T>(link->comm(), d->global, d->owned_end, dat.host(), Dim, d->global_size, root);
}

}  // namespace parloop::mpi
