// SPDX-License-Identifier: MIT
// How a par_loop argument reaches its data.
#pragma once

#include <cstdint>

namespace parloop {

enum class arg_kind : std::uint8_t {
  direct,     // the dat's element at the loop's element
  indirect,   // the dat's element at one slot of a map
  whole_map,  // the dat's elements at every slot of a map: the kernel indexes [slot][component]
  global,     // one value for the whole loop
};

}  // namespace parloop
