// SPDX-License-Identifier: MIT
// A program's global mesh as it declares it for distributing (mpi/distribute.hpp): sets, maps and
// dats declared alike on every rank, in the same order, their sizes and values read on the root
// only, or each rank giving a block of each set.
#pragma once

#include <any>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/any_array.hpp"
#include "parloop/core/dat.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/owners.hpp"

namespace parloop::mpi {

namespace detail {
// Values of type T from bytes that travelled (a rank with none has no pointers to copy with).
template <class T>
std::vector<T> values_of(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// What reads a mesh's declarations besides distributed_mesh: mpi/mesh_gathering.hpp and
// mpi/mesh_planning.hpp.
struct mesh_gathering;
struct mesh_planning;
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
  friend struct detail::mesh_gathering;
  friend struct detail::mesh_planning;
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

}  // namespace parloop::mpi
