// SPDX-License-Identifier: MIT
// Map: for each element of one set, `arity` elements of another (edge -> its two cells).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/handle.hpp"
#include "parloop/core/map_collisions.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {
struct map_colorings;  // exec/loop/colors.hpp

struct map_state : std::enable_shared_from_this<map_state> {
  map_state(Set from_set, Set to_set, int map_arity, std::vector<index_t> map_values, std::string map_name)
      : from(std::move(from_set)),
        to(std::move(to_set)),
        arity(map_arity),
        values(std::move(map_values)),
        rows(static_cast<index_t>(values.size() / static_cast<std::size_t>(arity))),
        name(std::move(map_name)),
        array(values.data(), values.size() * sizeof(index_t), from.runtime().state()->transfers) {}
  Set from;
  Set to;
  int arity;
  std::vector<index_t> values;
  // The elements of `from` with values: all of them, or on a distributed set those this rank
  // executes (no loop runs its non-exec halo).
  index_t rows;
  std::string name;
  // Map values change only when pl::renumber reorders its sets: uploaded on first device use.
  mirrored_array array;
  // Once either set is renumbered, the values as given, in the user's numbering (Map::values).
  std::vector<index_t> user_values;
  // A map from an extruded set (pl::extrude, core/extruded_set.hpp) has a row per column:
  // `values` are the targets of the column's bottom cell, each one further per layer up, and
  // `column_values` the columns they lie in (elements of the target's base), which is what two
  // columns share when some layers of theirs reach one target.
  bool layered = false;
  std::vector<index_t> column_values;
  index_t target_columns = 0;
  // A plain map's targets' columns, where its target set is extruded (colour_targets).
  mutable std::vector<index_t> target_column_of;

  // What the checks of WRITE and RW keep apart: the targets of a row, or of a layered map the
  // targets' columns, and how many there are.
  std::span<const index_t> row_targets() const { return layered ? column_values : values; }
  index_t target_count() const { return layered ? target_columns : to.size(); }

  // What colourings keep apart: as row_targets, but a plain map into an extruded set (from its
  // loop's base, say) gives its targets' columns too, so that one loop colouring through it and
  // through a layered map into the same set numbers that set's targets one way (columns).
  // Worked out on first use and kept: such a map is never renumbered.
  std::span<const index_t> colour_targets() const {
    if (layered || to.state().layers == 0) return row_targets();
    if (target_column_of.empty() && !values.empty()) {
      target_column_of.resize(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) target_column_of[i] = values[i] / to.state().layers;
    }
    return target_column_of;
  }
  index_t colour_target_count() const {
    if (layered || to.state().layers == 0) return target_count();
    return to.state().base->size;
  }

  // Rows put in the loops' new order of `from` (row i is the one that was from_order[i]; empty:
  // as they are) and targets renumbered for the new order of `to` (t becomes to_new[t]; empty:
  // as they are), as pl::renumber reorders the sets. Kept colourings and plans go; the device's
  // copy is stale.
  void reorder(std::span<const index_t> from_order, std::span<const index_t> to_new) {
    // Gathered from a copy into `values` in place (the array holds their address): the first
    // time, the copy kept as the user's values.
    std::vector<index_t> before;
    if (user_values.empty())
      user_values = values;
    else
      before = values;
    const std::vector<index_t>& from = before.empty() ? user_values : before;
    const auto width = static_cast<std::size_t>(arity);
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
      const std::size_t source = from_order.empty() ? r : static_cast<std::size_t>(from_order[r]);
      for (std::size_t j = 0; j < width; ++j) {
        const index_t t = from[source * width + j];
        values[r * width + j] = to_new.empty() ? t : to_new[static_cast<std::size_t>(t)];
      }
    }
    array.host_overwritten();
    colorings.reset();
    collisions.forget_ranges();
  }

  // The colourings and two-level plans kept for loops over ranges of `from` that combine into
  // targets of this map (exec/loop/colors.hpp finds or makes them): made on first use, since the
  // values change only when reordered.
  mutable std::shared_ptr<map_colorings> colorings;

  // Two elements of `from` that a loop over `run` sends to one target through `slot` (through any
  // slot when slot is whole_map), or nothing when every target is distinct; an element of `run`
  // whose row names one target twice (repeat_in_row). Computed once and kept
  // (core/map_collisions.hpp), since the values change only when reordered.
  static constexpr int whole_map = collision_checks::whole_map;
  std::optional<collision> first_collision(int slot, const loop_rows& run) const {
    return collisions.first_collision(rows_checked(), slot, run);
  }
  bool targets_collide(int slot) const { return collisions.targets_collide(rows_checked(), slot); }
  std::optional<collision> repeat_in_row(const loop_rows& run) const {
    return collisions.repeat_in_row(rows_checked(), run);
  }

 private:
  target_rows rows_checked() const { return {row_targets(), arity, rows, target_count(), layered}; }
  mutable collision_checks collisions{arity};
};
}  // namespace detail

class Map : public detail::shared_handle<detail::map_state, detail::map_handle_name> {
 public:
  // Braced values are values (without this, `{0, 1, 1, 2}` would become the name).
  Map(const Set& from, const Set& to, int arity, std::initializer_list<index_t> values, std::string name = {})
      : Map(from, to, arity, std::span<const index_t>(values.begin(), values.size()), std::move(name)) {}

  // values holds from.size() * arity entries, row by row; each must index into `to`. On a
  // distributed set, the rows of the elements this rank executes are enough (exec_end * arity).
  Map(const Set& from, const Set& to, int arity, std::span<const index_t> values, std::string name = {});

  const Set& from() const { return state().from; }
  const Set& to() const { return state().to; }
  int arity() const { return state().arity; }
  const std::string& name() const { return state().name; }
  // rows() * arity values: on a distributed set, the rows of the elements this rank executes.
  // In the user's numbering, as given, also once pl::renumber has reordered the sets.
  std::span<const index_t> values() const { return state().user_values.empty() ? state().values : state().user_values; }
  index_t rows() const { return state().rows; }

  friend bool operator==(const Map& a, const Map& b) { return a.same_as(b); }

  // The map made around `made` (pl::extrude's).
  explicit Map(std::shared_ptr<detail::map_state> made) : shared_handle(std::move(made)) {}
};

}  // namespace parloop

#if !PARLOOP_COMPILED
#include "parloop/core/map_impl.hpp"
#endif
