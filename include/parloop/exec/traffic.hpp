// SPDX-License-Identifier: MIT
// The bytes a loop declares it moves, as OP2's timing table counts them: each value of a dat
// argument once for READ or WRITE and twice (read and written) otherwise, and each map entry it
// reads. What caches save or atomics add is not in it: it is the loop's nominal traffic.
#pragma once

#include <cstdint>
#include <span>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/scalar_type.hpp"

namespace parloop::detail {

inline std::uint64_t declared_bytes(const arg_view& a, std::uint64_t elements) {
  if (a.kind == arg_kind::global) return 0;
  const std::uint64_t passes = (needs_old_value(a.mode) ? 1 : 0) + (is_modified(a.mode) ? 1 : 0);
  const std::uint64_t slots = a.kind == arg_kind::whole_map ? static_cast<std::uint64_t>(a.map->arity) : 1;
  const std::uint64_t map_bytes = a.kind == arg_kind::direct ? 0 : slots * sizeof(index_t);
  return elements * (slots * static_cast<std::uint64_t>(a.dim) * scalar_bytes(a.type) * passes + map_bytes);
}

inline std::uint64_t declared_bytes(range r, std::span<const arg_view> args) {
  const auto elements = static_cast<std::uint64_t>(r.end - r.start);
  std::uint64_t bytes = 0;
  for (const arg_view& a : args) bytes += declared_bytes(a, elements);
  return bytes;
}

}  // namespace parloop::detail
