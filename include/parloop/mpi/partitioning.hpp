// SPDX-License-Identifier: MIT
// How a global mesh is distributed (mpi/distribute.hpp): which set is partitioned and how, and how
// each rank orders its elements within their regions.
#pragma once

#include <utility>
#include <vector>

#include "parloop/mpi/global_mesh.hpp"
#include "parloop/mpi/partition.hpp"

namespace parloop::mpi {

// How each rank orders its elements within each of its regions.
enum class local_order {
  // For locality: the rank's share of the mesh ordered from the partitioned set as pl::renumber
  // orders a mesh (mpi/region_order.hpp), so that a mesh numbered at random runs as fast as one
  // numbered structurally.
  locality,
  // By global number.
  global,
};

// Which set is partitioned, and how; the owners of the other sets follow (mpi/owners.hpp). The
// root's partitioning is the one followed.
class partitioning {
 public:
  // The target set of `m` cut by the graph in which m joins its targets (cells joined by the
  // edges between them), with `which` partitioner.
  static partitioning by_graph(map_id m, graph_partitioner which = default_graph_partitioner) {
    partitioning p;
    p.kind_ = kind::graph;
    p.map_ = m.index;
    p.partitioner_ = which;
    return p;
  }
  // The set of `coordinates` cut by recursive coordinate bisection.
  template <int Dim>
  static partitioning by_coordinates(dat_id<double, Dim> coordinates) {
    partitioning p;
    p.kind_ = kind::coordinates;
    p.dat_ = coordinates.index;
    return p;
  }
  // Set `s` owned as `owners` says (read on the root; or, with values_from::each_rank, each rank's
  // for its block).
  static partitioning by_owners(set_id s, std::vector<int> owners) {
    partitioning p;
    p.kind_ = kind::given;
    p.set_ = s.index;
    p.owners_ = std::move(owners);
    return p;
  }
  // This partitioning, each rank's elements in `order` within their regions (by default, for
  // locality).
  partitioning ordered(local_order order) const {
    partitioning p = *this;
    p.order_ = order;
    return p;
  }

 private:
  friend class distributed_mesh;
  friend struct detail::mesh_gathering;
  friend struct detail::mesh_planning;
  enum class kind { graph, coordinates, given };
  kind kind_ = kind::given;
  int map_ = -1, dat_ = -1, set_ = -1;
  graph_partitioner partitioner_ = default_graph_partitioner;
  std::vector<int> owners_;
  local_order order_ = local_order::locality;
};

}  // namespace parloop::mpi
