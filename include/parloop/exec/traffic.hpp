// SPDX-License-Identifier: MIT
// The bytes a loop declares it moves, as OP2's timing table counts them: each value of a dat
// argument once for READ or WRITE and twice (read and written) otherwise, and each map entry it
// reads. What caches save or atomics add is not in it: it is the loop's nominal traffic.
#pragma once

#include <cstdint>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"

namespace parloop::detail {

template <class T, int Dim, access Mode, arg_kind Kind>
std::uint64_t declared_bytes(const arg<T, Dim, Mode, Kind>& a, std::uint64_t elements) {
  if constexpr (Kind == arg_kind::global) {
    return 0;
  } else {
    const std::uint64_t passes = (needs_old_value(Mode) ? 1 : 0) + (is_modified(Mode) ? 1 : 0);
    const std::uint64_t slots = Kind == arg_kind::whole_map ? static_cast<std::uint64_t>(a.map->arity) : 1;
    const std::uint64_t map_bytes = Kind == arg_kind::direct ? 0 : slots * sizeof(index_t);
    return elements * (slots * Dim * sizeof(T) * passes + map_bytes);
  }
}

template <class... Args>
std::uint64_t declared_bytes(range r, const Args&... args) {
  const auto elements = static_cast<std::uint64_t>(r.end - r.start);
  return (std::uint64_t{0} + ... + declared_bytes(args, elements));
}

}  // namespace parloop::detail
