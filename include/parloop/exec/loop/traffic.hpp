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
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// Over interior facets (`facets`), a layered whole map has twice its slots.
inline std::uint64_t declared_bytes(const arg_view& a, std::uint64_t elements, bool facets = false) {
  if (a.kind == arg_kind::global) return 0;
  const std::uint64_t passes = (needs_old_value(a.mode) ? 1 : 0) + (is_modified(a.mode) ? 1 : 0);
  const std::uint64_t per_cell = facets && a.map != nullptr && a.map->layered ? 2 : 1;
  const std::uint64_t slots = a.kind == arg_kind::whole_map ? per_cell * static_cast<std::uint64_t>(a.map->arity) : 1;
  const std::uint64_t map_bytes = a.kind == arg_kind::direct ? 0 : slots * sizeof(index_t);
  return elements * (slots * static_cast<std::uint64_t>(a.dim) * scalar_bytes(a.type) * passes + map_bytes);
}

// Over an extruded set (x.layers > 0), r is columns, each of x.count cells.
inline std::uint64_t declared_bytes(range r, std::span<const arg_view> args, const ir::extrusion& x = {}) {
  const auto elements =
      static_cast<std::uint64_t>(r.end - r.start) * (x.layers > 0 ? static_cast<std::uint64_t>(x.count) : 1);
  std::uint64_t bytes = 0;
  for (const arg_view& a : args) bytes += declared_bytes(a, elements, x.facets);
  return bytes;
}

}  // namespace parloop::detail
