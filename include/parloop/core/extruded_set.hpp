// SPDX-License-Identifier: MIT
// Extruded sets (PyOP2's ExtrudedSet): a column of layers over each element of a base set, as an
// ocean or atmosphere mesh stacks cells over a 2-D mesh. An extruded set is a Set whose
// entities are numbered column by column (entity (c, l) is c * layers + l), so dats on it are
// plain dats; a loop over it runs the layers of each column, and maps from it (pl::extrude) give
// each column's bottom targets, one further per layer up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

// Which cells of each column a loop over an extruded set runs.
enum class region {
  all,              // every layer
  bottom,           // layer 0
  top,              // the last layer
  interior_facets,  // each facet between two cells of a column: layers 0 to layers - 2, each with the cell above
};

class ExtrudedRegion;

class ExtrudedSet : public Set {
 public:
  // `layers` entities per column over each element of `base`: cells (`layers` of them), or the
  // levels of nodes or horizontal faces between them (one more). PyOP2's `layers` counts levels,
  // one more than the cells; Firedrake's ExtrudedMesh counts cells, as this does.
  ExtrudedSet(const Set& base, index_t layers, std::string name = {}) : Set(make(base, layers, std::move(name))) {}
  // A Set that is extruded (a copy of an ExtrudedSet) as the ExtrudedSet it is.
  explicit ExtrudedSet(const Set& extruded) : Set(extruded) {
    if (!extruded.extruded())
      throw argument_error(parloop::detail::format("set '{}' is not an extruded set", extruded.name()));
  }

  Set base() const { return base_handle(state().base); }
  index_t layers() const { return state().layers; }
  index_t columns() const { return state().base->size; }

  // The loops over a part of each column (par_loop(k, cells.bottom(), ...)).
  ExtrudedRegion bottom() const;
  ExtrudedRegion top() const;
  ExtrudedRegion interior_facets() const;

 private:
  friend class ExtrudedRegion;
  // Reaches Set's own shared state, which ExtrudedSet shares with its base.
  struct base_handle : Set {
    explicit base_handle(const Set& s) : Set(s) {}
    explicit base_handle(std::shared_ptr<detail::set_state> s) : Set(std::move(s)) {}
    using Set::shared_state;
  };

  static std::shared_ptr<detail::set_state> make(const Set& base, index_t layers, std::string name) {
    if (name.empty()) name = detail::default_name("extruded");
    const auto refuse = [&](const std::string& why) {
      throw argument_error(parloop::detail::format("extruded set '{}' over '{}': {}", name, base.name(), why));
    };
    if (layers < 1)
      throw data_error(
          parloop::detail::format("extruded set '{}' over '{}': {} layers; at least 1", name, base.name(), layers));
    if (base.extruded()) refuse("the base is itself extruded; extrude its base with more layers");
    if (base.distribution() != nullptr) refuse("the base is distributed over ranks, and extruded sets are not yet");
    if (base.renumbered()) {
      refuse(
          "pl::renumber has reordered the base, and extruded entities are numbered after the base's elements as "
          "the user numbers them; extruded meshes are not renumbered yet");
    }
    if (std::int64_t{base.size()} * layers > std::numeric_limits<index_t>::max()) {
      throw data_error(parloop::detail::format("extruded set '{}': {} columns of {} layers is more than {} entities",
                                               name, base.size(), layers, std::numeric_limits<index_t>::max()));
    }
    base.state().extruded_over = true;
    const Set flat(base.runtime(), base.size() * layers, std::move(name));
    std::shared_ptr<detail::set_state> s = base_handle(flat).shared_state();
    s->base = base_handle(base).shared_state();
    s->layers = layers;
    return s;
  }
};

// A part of each column of an extruded set, which a loop runs instead of all its layers.
class ExtrudedRegion {
 public:
  ExtrudedRegion(const ExtrudedSet& set, region which) : set_(set), which_(which) {}
  const ExtrudedSet& set() const { return set_; }
  region which() const { return which_; }

 private:
  ExtrudedSet set_;
  region which_;
};

inline ExtrudedRegion ExtrudedSet::bottom() const { return {*this, region::bottom}; }
inline ExtrudedRegion ExtrudedSet::top() const { return {*this, region::top}; }
inline ExtrudedRegion ExtrudedSet::interior_facets() const { return {*this, region::interior_facets}; }

inline const char* region_name(region r) {
  switch (r) {
    case region::all: return "all";
    case region::bottom: return "bottom";
    case region::top: return "top";
    case region::interior_facets: return "interior_facets";
  }
  return "?";
}

namespace detail {

// The map from `from` to `to` whose row for column c is base_values' row for c (`per_column`
// entries, columns of to's base) at each of `levels` in turn: slot i * per_column + j is column
// base_values[c][j] of `to`, `levels[i]` above the cell's own layer.
inline Map extruded_map(const ExtrudedSet& from, const ExtrudedSet& to, std::span<const index_t> base_values,
                        int per_column, const std::vector<int>& levels, std::string name) {
  if (name.empty()) name = default_name("map");
  if (!(from.runtime() == to.runtime())) {
    throw argument_error(parloop::detail::format("pl::extrude '{}': sets '{}' and '{}' belong to different runtimes",
                                                 name, from.name(), to.name()));
  }
  if (levels.empty()) throw argument_error(parloop::detail::format("pl::extrude '{}': no levels given", name));
  for (const int s : levels) {
    // The top cell's targets, and over interior facets the cell above the top facet's, are
    // levels from - 1 + s of a column of `to`.
    if (s < 0 || std::int64_t{from.layers()} - 1 + s >= to.layers()) {
      throw argument_error(
          parloop::detail::format("pl::extrude '{}': level {} above a cell of '{}' ({} layers) is outside the {} "
                                  "layers of '{}'",
                                  name, s, from.name(), from.layers(), to.layers(), to.name()));
    }
  }
  const int arity = per_column * static_cast<int>(levels.size());
  const auto columns = static_cast<std::size_t>(from.columns());
  std::vector<index_t> values(columns * static_cast<std::size_t>(arity)), column_values(values.size());
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t i = 0; i < levels.size(); ++i) {
      for (std::size_t j = 0; j < static_cast<std::size_t>(per_column); ++j) {
        const index_t column = base_values[c * static_cast<std::size_t>(per_column) + j];
        const std::size_t at = c * static_cast<std::size_t>(arity) + i * static_cast<std::size_t>(per_column) + j;
        column_values[at] = column;
        values[at] = column * to.layers() + levels[i];
      }
    }
  }
  auto m = std::make_shared<map_state>(from, to, arity, std::move(values), std::move(name));
  m->layered = true;
  m->column_values = std::move(column_values);
  m->target_columns = to.columns();
  return Map(std::move(m));
}

}  // namespace detail

// A map from extruded set `from` to extruded set `to` made from `base_map` (from from's base to
// to's base): for each of `levels` in turn, the base map's targets that many layers above the
// cell's own, so that a column's targets move up with its layer. A prism over a triangle to its
// six nodes: pl::extrude(triangle_nodes, cells, nodes, {0, 1}) (slots 0-2 below, 3-5 above).
inline Map extrude(const Map& base_map, const ExtrudedSet& from, const ExtrudedSet& to, const std::vector<int>& levels,
                   std::string name = {}) {
  if (!(base_map.from() == from.base()) || !(base_map.to() == to.base())) {
    throw argument_error(parloop::detail::format(
        "pl::extrude: map '{}' maps '{}' to '{}', and the extruded sets' bases are '{}' "
        "and '{}'",
        base_map.name(), base_map.from().name(), base_map.to().name(), from.base().name(), to.base().name()));
  }
  return detail::extruded_map(from, to, base_map.values(), base_map.arity(), levels, std::move(name));
}

// A map from extruded set `from` to `to` over the same base, column to the same column, at each
// of `levels` above the cell's own layer: a cell to its bottom and top faces (levels {0, 1}),
// or to itself (levels {0}), whose loop over interior facets sees the cell below and the one
// above each facet.
inline Map extrude(const ExtrudedSet& from, const ExtrudedSet& to, const std::vector<int>& levels,
                   std::string name = {}) {
  if (!(from.base() == to.base())) {
    throw argument_error(
        parloop::detail::format("pl::extrude: '{}' and '{}' are over different bases ('{}' and '{}'): give the "
                                "base map between them",
                                from.name(), to.name(), from.base().name(), to.base().name()));
  }
  std::vector<index_t> own(static_cast<std::size_t>(from.columns()));
  for (std::size_t c = 0; c < own.size(); ++c) own[c] = static_cast<index_t>(c);
  return detail::extruded_map(from, to, own, 1, levels, std::move(name));
}

}  // namespace parloop
