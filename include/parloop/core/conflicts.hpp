// SPDX-License-Identifier: MIT
// How a loop keeps apart the combining writes (INC, MIN, MAX) of elements that reach one target
// through a map. Chosen like a strategy: per loop, or as a runtime's default.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "parloop/error.hpp"

namespace parloop {

enum class conflicts : std::uint8_t {
  // Each combining write through a map is an atomic operation.
  atomics,
  // The loop's elements are coloured so that no two of a colour reach one target, and each
  // colour is a launch of its own, whose writes are plain stores: no atomics, and each target's
  // updates in an order that does not change from run to run.
  colors,
};

constexpr std::string_view to_string(conflicts c) { return c == conflicts::atomics ? "atomics" : "colors"; }

namespace detail {

// PARLOOP_CONFLICTS=atomics|colors: a runtime's default; unset or empty, atomics.
inline conflicts conflicts_from_environment() {
  const char* v = std::getenv("PARLOOP_CONFLICTS");
  if (v == nullptr || *v == '\0') return conflicts::atomics;
  for (const conflicts c : {conflicts::atomics, conflicts::colors}) {
    if (to_string(c) == v) return c;
  }
  throw argument_error(fmt::format(
      "PARLOOP_CONFLICTS is '{}': use atomics (combining writes through maps are atomic, the default) or colors "
      "(a launch per colour of elements that share no target)",
      v));
}

}  // namespace detail
}  // namespace parloop
