// SPDX-License-Identifier: MIT
// How a par_loop argument reaches its data.
#pragma once

#include <cstdint>

#include "parloop/core/access.hpp"

namespace parloop {

enum class arg_kind : std::uint8_t {
  direct,     // the dat's element at the loop's element
  indirect,   // the dat's element at one slot of a map
  whole_map,  // the dat's elements at every slot of a map: the kernel indexes [slot][component]
  global,     // one value for the whole loop
};

constexpr bool through_map(arg_kind kind) { return kind == arg_kind::indirect || kind == arg_kind::whole_map; }

// Whether an argument combines (INC, MIN, MAX) into a dat through a map: the writes that race
// on a device unless coloured or atomic.
constexpr bool combines_through_map(access mode, arg_kind kind) { return through_map(kind) && is_combining(mode); }

}  // namespace parloop
