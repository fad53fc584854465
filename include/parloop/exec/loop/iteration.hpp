// SPDX-License-Identifier: MIT
// What a par_loop iterates: a set, a subset of it, or the columns of an extruded set over the
// layers of a region, and the range it runs by default.
#pragma once

#include "parloop/core/extruded_set.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// What a loop iterates: its set, or a subset of it (then the loop's range is positions in the
// subset's elements, current for the loops' numbering), or the columns of an extruded set, each
// over the layers `extrusion` names. A subset whose elements are one run of the set's is run as
// that range of the set, and named in `run_of`: the loop keeps a subset's rules.
struct iteration {
  const Set& set;
  subset_state* subset;
  ir::extrusion extrusion = {};
  const subset_state* run_of = nullptr;
};

// The layers a loop over region `which` of extruded set `set` runs.
inline ir::extrusion layers_of(const Set& set, region which) {
  const index_t layers = set.state().layers;
  switch (which) {
    case region::bottom: return {layers, 0, 1, false};
    case region::top: return {layers, layers - 1, 1, false};
    case region::interior_facets: return {layers, 0, layers - 1, true};
    case region::all: break;
  }
  return {layers, 0, layers, false};
}

// A loop over set, or over all the layers of each column if it is extruded.
inline iteration iteration_over(const Set& set) {
  if (!set.extruded()) return {set, nullptr};
  return {set, nullptr, layers_of(set, region::all)};
}

// The range a loop over `over` runs by default: its elements, or its columns.
inline range whole_range(const iteration& over) {
  return {0, over.extrusion.layers > 0 ? over.set.state().base->size : over.set.size()};
}

}  // namespace parloop::detail
