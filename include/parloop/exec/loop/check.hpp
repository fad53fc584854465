// SPDX-License-Identifier: MIT
// The checks every par_loop makes before it runs: each argument fits the loop. Plain code over
// the arguments' views, compiled once however many loops a program has.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// An RW or WRITE argument through a map is copied in, changed and stored back by each element:
// two elements that reach one target are run one at a time (arg.hpp: needs_order), except where
// that cannot be kept: over MPI ranks (the distributed loop checks this), and between the columns
// of an extruded set.
inline void check_distinct_targets(const std::string& where, const loop_rows& run, const arg_view& a) {
  const bool whole = a.kind == arg_kind::whole_map;
  const auto c = a.map->first_collision(whole ? map_state::whole_map : a.slot % a.map->arity, run);
  if (!c) return;
  if (a.map->layered) {
    // Columns run at once on a device, each its layers in order: two columns reaching one
    // column of targets could race.
    throw argument_error(parloop::detail::format(
        "{}: dat '{}' is declared {} through map '{}', which sends columns {} and {} both into column {} of '{}': "
        "their stores would race on a device. Declare it pl::INC if the kernel adds to it (pl::MIN / pl::MAX for a "
        "minimum / maximum)",
        where, a.owner->name, a.mode == access::rw ? "pl::RW" : "pl::WRITE", a.map->name, c->first, c->second,
        c->target, a.map->to.name()));
  }
  const std::string through = whole ? parloop::detail::format("map '{}'", a.map->name)
                                    : parloop::detail::format("slot {} of map '{}'", a.slot, a.map->name);
  throw argument_error(parloop::detail::format(
      "{}: dat '{}' is declared {} through {}, which sends elements {} and {} both to element {} of '{}': their "
      "stores would race on a device. Declare it pl::INC if the kernel adds to it (pl::MIN / pl::MAX for a "
      "minimum / maximum), or loop over a map whose targets are distinct",
      where, a.owner->name, a.mode == access::rw ? "pl::RW" : "pl::WRITE", through, a.map->from.user_number(c->first),
      a.map->from.user_number(c->second), a.map->to.user_number(c->target), a.map->to.name()));
}

// Over a subset (`over`), r is positions in its elements (ascending: the last is the largest);
// over an extruded set (x.layers > 0), r is columns. A subset run as its range of the set
// (`run_of`) is named as any subset is.
inline void check_arg(const std::string& kernel, const Set& set, range r, std::size_t pos, const arg_view& a,
                      const subset_state* over, const ir::extrusion& x, const subset_state* run_of) {
  const auto where = [&] {
    if (const subset_state* named = over != nullptr ? over : run_of) {
      return parloop::detail::format("par_loop '{}' over subset '{}' of '{}', argument {}", kernel, named->name,
                                     set.name(), pos);
    }
    if (x.layers > 0 && x.facets) {
      return parloop::detail::format("par_loop '{}' over the interior facets of '{}', argument {}", kernel, set.name(),
                                     pos);
    }
    return parloop::detail::format("par_loop '{}' over '{}', argument {}", kernel, set.name(), pos);
  };
  const std::span<const index_t> elements =
      over != nullptr ? std::span<const index_t>(over->elements) : std::span<const index_t>{};
  const loop_rows run{r.start, r.end, elements, over != nullptr ? over->id : 0};
  const array_base& data = *a.owner;
  if (!(data.runtime == set.runtime())) {
    throw argument_error(
        parloop::detail::format("{}: '{}' belongs to another runtime than the set", where(), data.name));
  }
  if (a.kind == arg_kind::global) return;
  // A loop over a set that is not distributed has no halo to bring the values of one that is.
  if ((set.distribution() == nullptr) != (data.set->distribution() == nullptr)) {
    throw argument_error(
        parloop::detail::format("{}: dat '{}' is on set '{}', which is {}distributed over ranks, and the loop's "
                                "set '{}' is {}",
                                where(), data.name, data.set->name(), set.distribution() == nullptr ? "" : "not ",
                                set.name(), set.distribution() == nullptr ? "not" : "distributed"));
  }
  // Over an extruded set, the base set's dats and maps are the column's.
  const bool on_base = x.layers > 0 && &data.set->state() == set.state().base.get();
  if (a.kind == arg_kind::direct) {
    if (on_base) return;
    if (!(*data.set == set)) {
      throw argument_error(parloop::detail::format(
          "{}: dat '{}' is on set '{}', not on the iteration set{}; pass it through a map", where(), data.name,
          data.set->name(), x.layers > 0 ? parloop::detail::format(" or its base '{}'", set.state().base->name) : ""));
    }
    if (x.facets) {
      throw argument_error(
          parloop::detail::format("{}: dat '{}' is on the extruded set, and a facet has a cell on either side: "
                                  "reach them through pl::extrude(cells, cells, {{0}}), whose slots are the cell "
                                  "below and the cell above",
                                  where(), data.name));
    }
    return;
  }
  const map_state& m = *a.map;
  const bool from_base = x.layers > 0 && &m.from.state() == set.state().base.get();
  if (!(m.from == set) && !from_base) {
    throw argument_error(parloop::detail::format("{}: map '{}' maps from set '{}', not from the iteration set", where(),
                                                 m.name, m.from.name()));
  }
  if (x.layers > 0 && m.from == set && !m.layered) {
    throw argument_error(
        parloop::detail::format("{}: map '{}' has a row for each entity of extruded set '{}'; a loop over it "
                                "takes maps made by pl::extrude (a row per column) or maps from its base",
                                where(), m.name, set.name()));
  }
  if (!(m.to == *data.set)) {
    throw argument_error(parloop::detail::format("{}: map '{}' maps to set '{}', but dat '{}' is on set '{}'", where(),
                                                 m.name, m.to.name(), data.name, data.set->name()));
  }
  const index_t last = elements.empty() || r.end == r.start ? r.end : elements[static_cast<std::size_t>(r.end) - 1] + 1;
  if (last > m.rows) {
    throw argument_error(
        parloop::detail::format("{}: map '{}' has values for the first {} elements of '{}' (those this rank "
                                "executes), not for [{}, {})",
                                where(), m.name, m.rows, set.name(), r.start, last));
  }
  // Over interior facets, a layered map has the slots of the cell below, then the cell above's.
  const int slots = m.arity * (x.facets && m.layered ? 2 : 1);
  if (a.slot < 0 || a.slot >= slots) {
    throw argument_error(parloop::detail::format("{}: slot {} of map '{}', which has {} {}", where(), a.slot, m.name,
                                                 slots == m.arity ? "arity" : "over interior facets slots", slots));
  }
  if (!writes_one_at_a_time(a)) return;
  if (x.layers > 0) {
    check_distinct_targets(where(), run, a);
    return;
  }
  // One element's slots that meet alias on the host and are separate copies on a device.
  if (a.kind == arg_kind::whole_map) {
    if (const auto c = a.map->repeat_in_row(run)) {
      throw argument_error(parloop::detail::format(
          "{}: dat '{}' is declared {} through map '{}', whose row for element {} names element {} of '{}' twice: the "
          "kernel's pointers to it would alias on the host and be separate copies on a device. Declare it pl::INC if "
          "the kernel adds to it",
          where(), a.owner->name, a.mode == access::rw ? "pl::RW" : "pl::WRITE", a.map->name,
          a.map->from.user_number(c->first), a.map->to.user_number(c->target), a.map->to.name()));
    }
  }
}

// Over a subset of set, r is positions in its elements; over an extruded set, its columns.
inline void check_loop(const std::string& kernel, const Set& set, range r, std::span<const arg_view> args,
                       const subset_state* over = nullptr, const ir::extrusion& x = {},
                       const subset_state* run_of = nullptr) {
  const index_t size = over != nullptr ? static_cast<index_t>(over->elements.size())
                       : x.layers > 0  ? set.state().base->size
                                       : set.size();
  if (r.start < 0 || r.start > r.end || r.end > size) {
    throw argument_error(parloop::detail::format("par_loop '{}': range [{}, {}) is not within {} '{}' of size {}",
                                                 kernel, r.start, r.end, over != nullptr ? "subset" : "set",
                                                 over != nullptr ? over->name : set.name(), size));
  }
  for (std::size_t pos = 0; pos < args.size(); ++pos) check_arg(kernel, set, r, pos, args[pos], over, x, run_of);
}

}  // namespace parloop::detail
