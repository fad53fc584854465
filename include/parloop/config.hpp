// SPDX-License-Identifier: MIT
// Compile-time facts shared by every part of the library.
#pragma once

#include <cstdint>

namespace parloop {

// Map values and element indices: OP2 and PyOP2 use 32-bit indices, and so do we.
using index_t = std::int32_t;

namespace detail {
template <class... T>
inline constexpr bool dependent_false = false;
}  // namespace detail

}  // namespace parloop
