// SPDX-License-Identifier: MIT
// A program's global mesh distributed over the ranks of a communicator, as OP2 partitions one:
// every rank declares the same sets, maps and dats (the sizes and values are read on the root
// only, so only the root need read the mesh -- or each rank gives a block of each set, read in
// parallel, and the blocks are put together on the root); distributed_mesh partitions one set,
// derives the owners of the others, plans every rank's regions on the root, sends each rank its
// plan and its values, and gives back ordinary parloop handles: par_loop runs on them unchanged,
// with halos exchanged and reductions combined across the ranks (exec/distributed_loop.hpp).
// Each rank orders its elements within their regions for locality (mpi/region_order.hpp), unless
// told to keep the global order. gather() brings a dat back in global numbering;
// global_numbers() numbers each rank's share.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <any>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
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
#include "parloop/format.hpp"
#include "parloop/mpi/gather.hpp"
#include "parloop/mpi/graph.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/link.hpp"
#include "parloop/mpi/owners.hpp"
#include "parloop/mpi/partition.hpp"
#include "parloop/mpi/region_order.hpp"
#include "parloop/mpi/scatter.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

namespace detail {
// Values of type T from bytes that travelled (a rank with none has no pointers to copy with).
template <class T>
std::vector<T> values_of(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}
}  // namespace detail

// Handles of what a global_mesh declares.
struct set_id {
  int index;
};
struct map_id {
  int index;
};
template <class T, int Dim>
struct dat_id {
  int index;
};

// Where a global mesh's sizes and values are read.
enum class values_from {
  // The root's: the whole mesh (the other ranks' may be zero and empty; they are not read).
  root,
  // Every rank's: a block of each set, the blocks in rank order making its global numbering, with
  // the rows of the maps from that block (their values in the target's global numbering) and
  // the values of the dats on it. A partitioning by_owners gives the block's owners.
  each_rank,
};

// The mesh as the whole program sees it. Declared alike on every rank, in the same order; sizes
// and values are read as `from` says. It owns the values it is given (a vector is moved in, a span
// copied), so that a temporary's values are still there when distributed_mesh reads them; copies
// of a global_mesh share them.
class global_mesh {
 public:
  global_mesh() = default;
  explicit global_mesh(values_from from) : from_(from) {}
  set_id set(index_t size, std::string name) {
    sets_.push_back({size, std::move(name)});
    return {static_cast<int>(sets_.size()) - 1};
  }
  map_id map(set_id from, set_id to, int arity, std::vector<index_t> values, std::string name) {
    check_set(from, name);
    check_set(to, name);
    std::shared_ptr<const void> kept;
    const std::span<const index_t> view = keep(std::move(values), kept);
    maps_.push_back({global_map{from.index, to.index, arity, view}, std::move(name), std::move(kept)});
    return {static_cast<int>(maps_.size()) - 1};
  }
  map_id map(set_id from, set_id to, int arity, std::span<const index_t> values, std::string name) {
    return map(from, to, arity, std::vector<index_t>(values.begin(), values.end()), std::move(name));
  }
  template <class T, int Dim>
  dat_id<T, Dim> dat(set_id on, std::vector<T> values, std::string name) {
    check_set(on, name);
    std::shared_ptr<const void> kept;
    const std::span<const T> view = keep(std::move(values), kept);
    dats_.push_back(
        {on.index, scalar_of<T>(), Dim, std::as_bytes(view), std::move(name),
         [](const Set& s, scalar_type, std::vector<std::byte> bytes, const std::string& n, int) -> std::any {
           Dat<T, Dim> d(s, detail::values_of<T>(bytes), n);
           // Halo values came from the mesh: current.
           d.state().halo_current = true;
           return d;
         },
         std::move(kept)});
    return {static_cast<int>(dats_.size()) - 1};
  }
  template <class T, int Dim>
  dat_id<T, Dim> dat(set_id on, std::span<const T> values, std::string name) {
    return dat<T, Dim>(on, std::vector<T>(values.begin(), values.end()), std::move(name));
  }
  // A dat whose type and dimension are known at run time only (OP2's API): `dim` values of `type`
  // per element, as bytes. distributed_mesh::array gives its storage.
  int dat(set_id on, scalar_type type, int dim, std::vector<std::byte> values, std::string name) {
    check_set(on, name);
    std::shared_ptr<const void> kept;
    const std::span<const std::byte> view = keep(std::move(values), kept);
    with_data_scalar(type, parloop::detail::format("global mesh: dat '{}'", name), [](auto) {});
    dats_.push_back({on.index, type, dim, view, std::move(name), &make_any, std::move(kept)});
    return static_cast<int>(dats_.size()) - 1;
  }

 private:
  friend class distributed_mesh;
  struct set_decl {
    index_t size;
    std::string name;
  };
  struct map_decl {
    global_map map;  // its values a view of `kept`
    std::string name;
    std::shared_ptr<const void> kept;
  };
  struct dat_decl {
    int set;
    scalar_type type;
    int dim;
    std::span<const std::byte> values;  // a view of `kept`
    std::string name;
    std::any (*make)(const Set&, scalar_type, std::vector<std::byte>, const std::string&, int dim);
    std::shared_ptr<const void> kept;
  };
  // A runtime-typed dat's storage on its distributed set, from the values that arrived.
  static std::any make_any(const Set& s, scalar_type type, std::vector<std::byte> bytes, const std::string& n,
                           int dim) {
    parloop::detail::any_array a =
        parloop::detail::make_any_dat(s, type, bytes.empty() ? nullptr : bytes.data(), n, dim);
    // Halo values came from the mesh: current.
    a.owner->halo_current = true;
    return a;
  }
  // Moves `values` where `holder` keeps them, and returns a view of them.
  template <class T>
  static std::span<const T> keep(std::vector<T> values, std::shared_ptr<const void>& holder) {
    auto owned = std::make_shared<const std::vector<T>>(std::move(values));
    holder = owned;
    return std::span<const T>(*owned);
  }
  void check_set(set_id s, const std::string& what) const {
    if (s.index < 0 || static_cast<std::size_t>(s.index) >= sets_.size()) {
      throw argument_error(
          parloop::detail::format("global mesh: '{}' names set {} of {} declared", what, s.index, sets_.size()));
    }
  }
  // What must be alike on every rank: names, maps' ends and arities, dats' sets, types and dims.
  std::string declarations() const {
    std::string out = from_ == values_from::root ? "from the root;" : "from each rank;";
    for (const set_decl& s : sets_) out += parloop::detail::format("set {};", s.name);
    for (const map_decl& m : maps_)
      out += parloop::detail::format("map {} {}->{} x{};", m.name, m.map.from, m.map.to, m.map.arity);
    for (const dat_decl& d : dats_)
      out += parloop::detail::format("dat {} on {} {}x{};", d.name, d.set, type_name(d.type), d.dim);
    return out;
  }

  values_from from_ = values_from::root;
  std::vector<set_decl> sets_;
  std::vector<map_decl> maps_;
  std::vector<dat_decl> dats_;
};

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
  enum class kind { graph, coordinates, given };
  kind kind_ = kind::given;
  int map_ = -1, dat_ = -1, set_ = -1;
  graph_partitioner partitioner_ = default_graph_partitioner;
  std::vector<int> owners_;
  local_order order_ = local_order::locality;
};

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
    std::optional<whole_mesh> gathered;
    if (given.from_ == values_from::each_rank) put_together(gathered.emplace(), *link_, given, given_how, root);
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
        ordering = {partitioned_set(mesh, how), how.order_ == local_order::locality ? 1 : 0};
        plans = plan(mesh, how, ordering[0], ranks);
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
  // A mesh given rank by rank, put together on the root (elsewhere only its declarations).
  struct whole_mesh {
    global_mesh mesh{values_from::root};
    partitioning how;
  };

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

  // A rank on the host or threads backend runs a loop's lambda where a device rank takes part in
  // agreeing on its kernel with the others (exec/kernel_cache.hpp): ranks on the CPU and on
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

  // Each rank's values of a dat on set `set`, in the plan's order, from the root's global values
  // (`width` bytes per element).
  static std::vector<std::byte> scatter_values(MPI_Comm comm, const std::vector<rank_plan>& plans, int set,
                                               std::span<const std::byte> values, std::size_t width,
                                               const std::vector<index_t>& sizes, int root, const std::string& name) {
    const int rank = rank_of(comm);
    std::vector<std::byte> packed;
    std::vector<int> counts, offsets;
    int ok = 1;
    if (rank == root) {
      std::size_t total = 0;
      for (const rank_plan& p : plans) {
        const auto bytes = p.sets[static_cast<std::size_t>(set)].global.size() * width;
        ok = ok != 0 && total + bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max()) ? 1 : 0;
        counts.push_back(static_cast<int>(bytes));
        offsets.push_back(static_cast<int>(total));
        total += bytes;
      }
      if (ok != 0) {
        packed.resize(total);
        std::byte* out = packed.data();
        for (const rank_plan& p : plans) {
          const std::vector<index_t>& global = p.sets[static_cast<std::size_t>(set)].global;
          parloop::detail::gather_rows(out, values.data(), width, global);
          out += global.size() * width;
        }
      }
    }
    check(MPI_Bcast(&ok, 1, MPI_INT, root, comm), "MPI_Bcast");
    if (ok == 0) {
      throw argument_error(
          parloop::detail::format("distribute: dat '{}' of {} elements of {} bytes is too large to send in one "
                                  "message",
                                  name, sizes[static_cast<std::size_t>(set)], width));
    }
    int mine = 0;
    check(MPI_Scatter(counts.data(), 1, MPI_INT, &mine, 1, MPI_INT, root, comm), "MPI_Scatter");
    std::vector<std::byte> out(static_cast<std::size_t>(mine));
    check(MPI_Scatterv(packed.data(), counts.data(), offsets.data(), MPI_BYTE, out.data(), mine, MPI_BYTE, root, comm),
          "MPI_Scatterv");
    return out;
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
