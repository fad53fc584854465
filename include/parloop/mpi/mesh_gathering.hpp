// SPDX-License-Identifier: MIT
// A mesh given rank by rank (values_from::each_rank) put together on the root, so that the root
// plans it as a mesh it had read: each rank checks its own blocks, every rank hears whether all
// fit before anything is sent, then the blocks are gathered. Collective.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/access.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/gather.hpp"
#include "parloop/mpi/global_mesh.hpp"
#include "parloop/mpi/link.hpp"
#include "parloop/mpi/partitioning.hpp"

namespace parloop::mpi::detail {

// A mesh given rank by rank, put together on the root (elsewhere only its declarations).
struct whole_mesh {
  global_mesh mesh{values_from::root};
  partitioning how;
};

struct mesh_gathering {
  // Each rank's share of the mesh on the root, as one mesh. Collective.
  static void put_together(whole_mesh& whole, mpi_link& link, const global_mesh& shares, const partitioning& how,
                           int root) {
    whole.how = how;
    // Each rank checks its own shares; every rank hears whether all fit, and the first rank whose
    // did not, before anything is sent.
    std::string problem;
    const auto agree_all_fit = [&link, &problem] {
      std::int32_t first = problem.empty() ? link.ranks() : link.rank();
      link.all_reduce(&first, 1, scalar_type::int32, access::min);
      if (first == link.ranks()) return;
      throw argument_error(problem.empty()
                               ? parloop::detail::format("distribute: rank {}'s share of the mesh does not fit (its "
                                                         "error says why)",
                                                         first)
                               : parloop::detail::format("distribute: rank {}: {}", link.rank(), problem));
    };
    const auto block = [&](int set) {
      return static_cast<std::size_t>(std::max<index_t>(shares.sets_[static_cast<std::size_t>(set)].size, 0));
    };
    const auto found = [&problem](bool wrong, const auto& say) {
      if (wrong && problem.empty()) problem = say();
    };
    for (const global_mesh::set_decl& s : shares.sets_) {
      found(s.size < 0,
            [&] { return parloop::detail::format("its block of set '{}' has a negative size, {}", s.name, s.size); });
    }
    for (const global_mesh::map_decl& m : shares.maps_) {
      found(m.map.arity < 1 || m.map.values.size() != block(m.map.from) * static_cast<std::size_t>(m.map.arity), [&] {
        return parloop::detail::format("map '{}' has {} values for its block of {} elements of arity {}", m.name,
                                       m.map.values.size(), block(m.map.from), m.map.arity);
      });
    }
    for (const global_mesh::dat_decl& d : shares.dats_) {
      found(d.values.size() != block(d.set) * scalar_bytes(d.type) * static_cast<std::size_t>(d.dim), [&] {
        return parloop::detail::format("dat '{}' has {} bytes of values for its block of {} elements of {} {}", d.name,
                                       d.values.size(), block(d.set), d.dim, type_name(d.type));
      });
    }
    const bool owners_given = how.kind_ == partitioning::kind::given && how.set_ >= 0 &&
                              static_cast<std::size_t>(how.set_) < shares.sets_.size();
    found(owners_given && how.owners_.size() != block(how.set_), [&] {
      return parloop::detail::format("{} owners given for its block of {} elements of set '{}'", how.owners_.size(),
                                     block(how.set_), shares.sets_[static_cast<std::size_t>(how.set_)].name);
    });
    agree_all_fit();
    // Owners given for their blocks travel from every rank, or from none.
    const bool all_give_owners = link.all(owners_given), none_give_owners = link.all(!owners_given);
    if (!all_give_owners && !none_give_owners) {
      throw argument_error(
          parloop::detail::format("distribute: rank {} {} owners for its block and other ranks do not: with "
                                  "values_from::each_rank every rank partitions alike",
                                  link.rank(), owners_given ? "gives" : "gives no"));
    }
    std::vector<std::int64_t> sizes;
    for (const global_mesh::set_decl& s : shares.sets_) sizes.push_back(s.size);
    link.all_reduce(sizes.data(), static_cast<int>(sizes.size()), scalar_type::int64, access::inc);
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      if (sizes[s] > std::numeric_limits<index_t>::max()) {
        throw argument_error(
            parloop::detail::format("distribute: the ranks' blocks make set '{}' of {} elements, more than "
                                    "parloop's 32-bit indices reach",
                                    shares.sets_[s].name, sizes[s]));
      }
      whole.mesh.sets_.push_back({static_cast<index_t>(sizes[s]), shares.sets_[s].name});
    }
    // Each rank's rows against the sets the blocks make: the rank, row and slot named.
    for (const global_mesh::map_decl& m : shares.maps_) {
      const std::int64_t targets = sizes[static_cast<std::size_t>(m.map.to)];
      for (std::size_t i = 0; i < m.map.values.size() && problem.empty(); ++i) {
        found(m.map.values[i] < 0 || m.map.values[i] >= targets, [&] {
          return parloop::detail::format(
              "map '{}': value {} (row {} of its block, slot {}) is outside set '{}' of {} elements", m.name,
              m.map.values[i], i / static_cast<std::size_t>(m.map.arity), i % static_cast<std::size_t>(m.map.arity),
              shares.sets_[static_cast<std::size_t>(m.map.to)].name, targets);
        });
      }
    }
    agree_all_fit();
    const auto gathered = [&](std::span<const std::byte> mine, const std::string& what) {
      return gather_blocks(link.comm(), mine, root, what);
    };
    if (owners_given)
      whole.how.owners_ = detail::values_of<int>(gathered(std::as_bytes(std::span(how.owners_)), "the owners"));
    // Only the root's values are read: its mesh keeps what arrived.
    const bool at_root = link.rank() == root;
    for (const global_mesh::map_decl& m : shares.maps_) {
      global_mesh::map_decl d = m;
      auto arrived = detail::values_of<index_t>(gathered(std::as_bytes(m.map.values), "map '" + m.name + "'"));
      if (at_root) d.map.values = global_mesh::keep(std::move(arrived), d.kept);
      whole.mesh.maps_.push_back(std::move(d));
    }
    for (const global_mesh::dat_decl& m : shares.dats_) {
      global_mesh::dat_decl d = m;
      auto arrived = gathered(d.values, "dat '" + d.name + "'");
      if (at_root) d.values = global_mesh::keep(std::move(arrived), d.kept);
      whole.mesh.dats_.push_back(std::move(d));
    }
  }
};

}  // namespace parloop::mpi::detail
