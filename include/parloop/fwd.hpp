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
// What a device loop needs of a backend (exec/device/device_backend.hpp).
class device_backend;
// A par_loop call below its types, its kernel's entry for its arguments and how it launches
// (exec/loop/loop_call.hpp, exec/kernel/kernel_entry.hpp): what the threads backend runs
// (core/thread_team.hpp).
struct loop_call;
struct signature_entry;
struct loop_choice;
}  // namespace detail
}  // namespace parloop
