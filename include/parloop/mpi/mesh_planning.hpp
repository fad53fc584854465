// SPDX-License-Identifier: MIT
// The root's plan of a global mesh (mpi/distribute.hpp): the mesh checked, the partitioned set
// cut as asked, the owners of the other sets derived from it, and every rank's regions planned.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/global_mesh.hpp"
#include "parloop/mpi/graph.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/owners.hpp"
#include "parloop/mpi/partition.hpp"
#include "parloop/mpi/partitioning.hpp"

namespace parloop::mpi::detail {

struct mesh_planning {
  // The set `how` partitions, checked against `mesh`.
  static int partitioned_set(const global_mesh& mesh, const partitioning& how) {
    switch (how.kind_) {
      case partitioning::kind::graph:
        if (how.map_ < 0 || static_cast<std::size_t>(how.map_) >= mesh.maps_.size()) {
          throw argument_error(parloop::detail::format("partitioning by map {} of {}", how.map_, mesh.maps_.size()));
        }
        return mesh.maps_[static_cast<std::size_t>(how.map_)].map.to;
      case partitioning::kind::coordinates:
        if (how.dat_ < 0 || static_cast<std::size_t>(how.dat_) >= mesh.dats_.size()) {
          throw argument_error(
              parloop::detail::format("partitioning by the coordinates of dat {} of {}", how.dat_, mesh.dats_.size()));
        }
        return mesh.dats_[static_cast<std::size_t>(how.dat_)].set;
      case partitioning::kind::given:
        if (how.set_ < 0 || static_cast<std::size_t>(how.set_) >= mesh.sets_.size()) {
          throw argument_error(parloop::detail::format("owners given for set {} of {}", how.set_, mesh.sets_.size()));
        }
        return how.set_;
    }
    throw argument_error("partitioning of an unknown kind");
  }

  // Every rank's plan, `partitioned` (partitioned_set's) cut as `how` says.
  static std::vector<rank_plan> plan(const global_mesh& mesh, const partitioning& how, int partitioned, int ranks) {
    std::vector<index_t> sizes;
    for (const auto& s : mesh.sets_) sizes.push_back(s.size);
    std::vector<global_map> maps;
    for (const auto& m : mesh.maps_) maps.push_back(m.map);
    for (std::size_t i = 0; i < mesh.dats_.size(); ++i) {
      const auto& d = mesh.dats_[i];
      const std::size_t expected = static_cast<std::size_t>(sizes[static_cast<std::size_t>(d.set)]) *
                                   scalar_bytes(d.type) * static_cast<std::size_t>(d.dim);
      if (d.values.size() != expected) {
        throw argument_error(parloop::detail::format("dat '{}' has {} bytes of values for {} elements of {} {}", d.name,
                                                     d.values.size(), sizes[static_cast<std::size_t>(d.set)], d.dim,
                                                     type_name(d.type)));
      }
    }
    for (const auto& decl : mesh.maps_) {
      const global_map& m = decl.map;
      const std::string& name = decl.name;
      const index_t targets = sizes[static_cast<std::size_t>(m.to)];
      if (m.arity < 1 || m.values.size() != static_cast<std::size_t>(sizes[static_cast<std::size_t>(m.from)]) *
                                                static_cast<std::size_t>(m.arity)) {
        throw argument_error(parloop::detail::format("map '{}' has {} values for {} elements of arity {}", name,
                                                     m.values.size(), sizes[static_cast<std::size_t>(m.from)],
                                                     m.arity));
      }
      for (std::size_t i = 0; i < m.values.size(); ++i) {
        if (m.values[i] < 0 || m.values[i] >= targets) {
          throw argument_error(parloop::detail::format(
              "map '{}': value {} (element {}, slot {}) is outside set '{}' of {} elements", name, m.values[i],
              i / static_cast<std::size_t>(m.arity), i % static_cast<std::size_t>(m.arity),
              mesh.sets_[static_cast<std::size_t>(m.to)].name, targets));
        }
      }
    }
    std::vector<int> owners;
    switch (how.kind_) {
      case partitioning::kind::graph: {
        const auto& m = maps[static_cast<std::size_t>(how.map_)];
        owners = partition_graph(joined_by(m.values, m.arity, sizes[static_cast<std::size_t>(m.to)]), ranks,
                                 how.partitioner_);
        break;
      }
      case partitioning::kind::coordinates: {
        const auto& d = mesh.dats_[static_cast<std::size_t>(how.dat_)];
        owners = partition_coordinates(
            std::span<const double>(reinterpret_cast<const double*>(d.values.data()), d.values.size() / sizeof(double)),
            d.dim, ranks);
        break;
      }
      case partitioning::kind::given: owners = how.owners_; break;
    }
    return plan_halos(sizes, maps, derive_owners(sizes, maps, partitioned, std::move(owners), ranks), ranks);
  }
};

}  // namespace parloop::mpi::detail
