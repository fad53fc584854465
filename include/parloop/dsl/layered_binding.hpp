// SPDX-License-Identifier: MIT
// The host's bindings of a par_loop's arguments in a loop over an extruded set: at(c, l) is what
// the kernel receives for the cell of column c in layer l. A layered argument -- a dat on the
// extruded set, a map from it (pl::extrude) -- moves with the layer; a dat on the base set or a
// map from it stays with the column. Over interior facets a layered map has twice its slots:
// the cell below the facet's (layer l), then the cell above's (l + 1).
#pragma once

#include <cstddef>

#include "parloop/core/arg.hpp"
#include "parloop/dsl/accessor.hpp"

namespace parloop::dsl {

// A whole map's rows in a loop over an extruded set: slot j of a layered map is the map's slot j,
// `layer` further up; over interior facets slot per_column + j is slot j one layer further still
// (the cell above). A map from the base set has layer 0. Compared, not divided: a division per
// slot cost more than the loop's own work.
template <class T, int Dim>
struct host_layered_table_cursor {
  T* data;
  const index_t* map_row;
  int per_column;
  index_t layer;
  int arity;
  template <class J>
  PARLOOP_INLINE host_cursor<T> row_at(const J& j, std::size_t pos) const {
    const int slot = detail::host_index(j, arity, pos, "map slots");
    const bool above = slot >= per_column;
    const index_t target = map_row[above ? slot - per_column : slot] + layer + (above ? 1 : 0);
    return {data + static_cast<std::ptrdiff_t>(target) * Dim};
  }
};

template <std::size_t Pos, class A>
class layered_binding;

// Where a cell's values lie is c * per_column + l * per_layer elements in: (layers, 1) for a dat on
// the extruded set, (1, 0) for one on its base; likewise a map's target moves per_layer (1 or 0)
// per layer. Multiplied, not branched on, so that the loop over a column's layers stays simple.
template <std::size_t Pos, class T, int Dim, access Mode>
class layered_binding<Pos, arg<T, Dim, Mode, arg_kind::direct>> {
 public:
  layered_binding(const arg<T, Dim, Mode, arg_kind::direct>& a, std::byte*, const Set& over)
      : data_(a.data->host.data()),
        per_column_(*a.data->set == over ? over.state().layers : 1),
        per_layer_(*a.data->set == over ? 1 : 0) {}
  PARLOOP_INLINE auto at(index_t c, index_t l) const {
    const std::ptrdiff_t e = std::ptrdiff_t{c} * per_column_ + std::ptrdiff_t{l} * per_layer_;
    return row<host_cursor<T>, Mode, Pos, Dim>({data_ + e * Dim});
  }
  void finish() {}

 private:
  T* data_;
  std::ptrdiff_t per_column_, per_layer_;
};

template <std::size_t Pos, class T, int Dim, access Mode>
class layered_binding<Pos, arg<T, Dim, Mode, arg_kind::indirect>> {
 public:
  // Over interior facets, slot arity + j is slot j of the cell above.
  layered_binding(const arg<T, Dim, Mode, arg_kind::indirect>& a, std::byte*, const Set&)
      : data_(a.data->host.data()),
        targets_(a.map->values.data() + a.slot % a.map->arity),
        arity_(a.map->arity),
        per_layer_(a.map->layered ? 1 : 0),
        above_(a.slot / a.map->arity) {}
  PARLOOP_INLINE auto at(index_t c, index_t l) const {
    const index_t target = targets_[std::ptrdiff_t{c} * arity_] + l * per_layer_ + above_;
    return row<host_cursor<T>, Mode, Pos, Dim>({data_ + static_cast<std::ptrdiff_t>(target) * Dim});
  }
  void finish() {}

 private:
  T* data_;
  const index_t* targets_;
  std::ptrdiff_t arity_;
  index_t per_layer_, above_;
};

template <std::size_t Pos, class T, int Dim, access Mode>
class layered_binding<Pos, arg<T, Dim, Mode, arg_kind::whole_map>> {
 public:
  layered_binding(const arg<T, Dim, Mode, arg_kind::whole_map>& a, std::byte*, const Set&, bool facets)
      : data_(a.data->host.data()),
        map_(a.map->values.data()),
        per_column_(a.map->arity),
        per_layer_(a.map->layered ? 1 : 0),
        arity_(a.map->layered && facets ? 2 * per_column_ : per_column_) {}
  PARLOOP_INLINE auto at(index_t c, index_t l) const {
    const index_t* row_of = map_ + std::ptrdiff_t{c} * per_column_;
    return table<host_layered_table_cursor<T, Dim>, Mode, Pos, Dim>(
        {data_, row_of, per_column_, l * per_layer_, arity_});
  }
  void finish() {}

 private:
  T* data_;
  const index_t* map_;
  int per_column_;
  index_t per_layer_;
  int arity_;
};

template <std::size_t Pos, class T, int Dim, access Mode>
class layered_binding<Pos, arg<T, Dim, Mode, arg_kind::global>> {
 public:
  layered_binding(const arg<T, Dim, Mode, arg_kind::global>& a, std::byte* partial, const Set&) : global_(a, partial) {}
  PARLOOP_INLINE auto at(index_t, index_t) { return global_.at(0); }
  void finish() { global_.finish(); }

 private:
  host_binding<Pos, arg<T, Dim, Mode, arg_kind::global>> global_;
};

// Makes argument Pos's binding: only a whole map's needs to know whether the loop runs facets.
template <std::size_t Pos, class T, int Dim, access Mode, arg_kind Kind>
layered_binding<Pos, arg<T, Dim, Mode, Kind>> bind_layered(const arg<T, Dim, Mode, Kind>& a, std::byte* partial,
                                                           const Set& over, bool facets) {
  if constexpr (Kind == arg_kind::whole_map)
    return {a, partial, over, facets};
  else
    return {a, partial, over};
}

}  // namespace parloop::dsl
