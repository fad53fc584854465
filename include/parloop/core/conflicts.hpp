// SPDX-License-Identifier: MIT
// How a loop keeps apart the combining writes (INC, MIN, MAX) of elements that reach one target
// through a map. Chosen like a strategy: per loop, or as a runtime's default.
#pragma once

#include <cstdint>
#include <string_view>

namespace parloop {

enum class conflicts : std::uint8_t {
  // Each combining write through a map is an atomic operation.
  atomics,
  // The loop's elements are coloured so that no two of a colour reach one target, and each
  // colour is a launch of its own, whose writes are plain stores: no atomics, and each target's
  // updates in an order that does not change from run to run. A loop with an RW or WRITE
  // through a map whose targets meet runs so whatever is asked.
  colors,
  // OP2's two-level plan: the range is cut into blocks of a work-group's size; blocks are
  // coloured so that no two of a colour reach one target, one launch per block colour; within a
  // block, elements are coloured, and each colour in turn adds its increments into the block's
  // copy of its targets in local memory, which the work-group then adds to the dat.
  blocks,
};

constexpr std::string_view to_string(conflicts c) {
  return c == conflicts::atomics ? "atomics" : c == conflicts::colors ? "colors" : "blocks";
}

}  // namespace parloop
