// SPDX-License-Identifier: MIT
// The IR parameters of a par_loop's arguments, from their views: what the kernel's code depends
// on, which is also its signature in the kernel's cache.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "parloop/core/arg.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::dsl {

// The parameters of `views`, in order, into the first views.size() of `out`. Distinct dats and
// maps are numbered by first appearance. In a loop over extruded set `extruded`, the arguments
// on it or through maps from it are layered, and over its interior facets (`facets`) such a map
// has twice its slots. No allocation: this runs on every par_loop.
inline void params_of(std::span<const parloop::detail::arg_view> views, std::span<ir::param> out,
                      const Set* extruded = nullptr, bool facets = false) {
  // Only the first n_datas and n_maps are read, each written first: nothing to clear per loop.
  std::array<const void*, parloop::detail::max_loop_args> datas, maps;
  std::size_t n_datas = 0, n_maps = 0;
  // The position of p among the n distinct pointers seen so far, adding it if new.
  const auto distinct_index = [](auto& seen, std::size_t& n, const void* p) {
    for (std::size_t i = 0; i < n; ++i) {
      if (seen[i] == p) return static_cast<int>(i);
    }
    seen[n] = p;
    return static_cast<int>(n++);
  };
  for (std::size_t i = 0; i < views.size(); ++i) {
    const parloop::detail::arg_view& v = views[i];
    const bool mapped = through_map(v.kind);
    const bool layered =
        extruded != nullptr && (mapped ? v.map->layered : v.kind == arg_kind::direct && *v.owner->set == *extruded);
    out[i] = {v.type,
              v.dim,
              v.mode,
              v.kind,
              v.kind == arg_kind::indirect ? v.slot : 0,
              mapped ? v.map->arity * (layered && facets ? 2 : 1) : 1,
              distinct_index(datas, n_datas, v.owner),
              mapped ? distinct_index(maps, n_maps, v.map) : -1,
              layered};
  }
}

}  // namespace parloop::dsl
