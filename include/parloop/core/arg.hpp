// SPDX-License-Identifier: MIT
// Arguments of a par_loop: a dat or global with its access mode and, if indirect, its map; and
// the same with its types erased (arg_view), which is all the code below par_loop works on.
#pragma once

#include <cstddef>
#include <cstdint>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/scalar_type.hpp"

namespace parloop {

template <class T, int Dim, access Mode, arg_kind Kind>
struct arg {
  using value_type = T;
  static constexpr int dim = Dim;
  static constexpr access mode = Mode;
  static constexpr arg_kind kind = Kind;

  detail::array_state<T>* data;
  detail::map_state* map = nullptr;
  int slot = 0;  // the map slot of an indirect argument
};

namespace detail {

// The most arguments one par_loop takes: what is kept per argument below par_loop lives in
// arrays of this size, so that a warm launch allocates nothing.
inline constexpr std::size_t max_loop_args = 64;

template <class A>
inline constexpr bool is_loop_arg = false;
template <class T, int Dim, access Mode, arg_kind Kind>
inline constexpr bool is_loop_arg<arg<T, Dim, Mode, Kind>> = true;

// One argument with its types erased.
struct arg_view {
  mirrored_array* data;  // the dat's or global's values
  array_base* owner;     // which dat or global it is: its runtime, set, name and halo
  map_state* map;        // null unless through a map
  access mode;
  arg_kind kind;
  int slot;
  scalar_type type;
  int dim;
};

template <class T, int Dim, access Mode, arg_kind Kind>
arg_view view_of(const arg<T, Dim, Mode, Kind>& a) {
  return {&a.data->array, a.data, a.map, Mode, Kind, a.slot, scalar_of<T>(), Dim};
}

inline bool combines_through_map(const arg_view& v) { return combines_through_map(v.mode, v.kind); }

// An RW or WRITE through a map: each element copies its targets in, changes them and stores
// them back whole.
inline bool writes_one_at_a_time(const arg_view& a) {
  return through_map(a.kind) && (a.mode == access::rw || a.mode == access::write);
}
// Such an argument through a map that sends two elements to one target: its loop runs those
// elements one at a time -- in order on the host, coloured elsewhere -- so that no store is lost
// and the result is a serial order's. (Columns of a layered map meeting are refused instead.)
inline bool needs_order(const arg_view& a) {
  return writes_one_at_a_time(a) && !a.map->layered &&
         a.map->targets_collide(a.kind == arg_kind::whole_map ? map_state::whole_map : a.slot % a.map->arity);
}
// Whether the loop's colouring keeps a's targets apart: it combines into them, or writes them
// one element at a time.
inline bool colours_through_map(const arg_view& a) { return combines_through_map(a) || needs_order(a); }

}  // namespace detail
}  // namespace parloop
