// SPDX-License-Identifier: MIT
// Arguments of a par_loop: a dat or global with its access mode and, if indirect, its map.
#pragma once

#include <cstdint>

#include "parloop/core/access.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/map.hpp"

namespace parloop {

enum class arg_kind : std::uint8_t {
  direct,     // the dat's element at the loop's element
  indirect,   // the dat's element at one slot of a map
  whole_map,  // the dat's elements at every slot of a map: the kernel indexes [slot][component]
  global,     // one value for the whole loop
};

template <class T, int Dim, access Mode, arg_kind Kind>
struct arg {
  using value_type = T;
  static constexpr int dim = Dim;
  static constexpr access mode = Mode;
  static constexpr arg_kind kind = Kind;

  detail::array_state<T>* data;
  const detail::map_state* map = nullptr;
  int slot = 0;  // the map slot of an indirect argument
};

}  // namespace parloop
