// SPDX-License-Identifier: MIT
// Declarations of parloop's public types, for headers that only name them.
#pragma once

#include <cstdint>

namespace parloop {
enum class access : std::uint8_t;
enum class backend_kind;
class Runtime;
class Set;
class Map;
template <class T, int Dim>
class Dat;
template <class T, int Dim>
class Global;
template <class F>
class Kernel;
struct range;

namespace detail {
// What a device loop needs of a backend (exec/device_backend.hpp).
class device_backend;
}  // namespace detail
}  // namespace parloop
