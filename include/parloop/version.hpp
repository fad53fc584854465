// SPDX-License-Identifier: MIT
// The library version; CMake reads the three numbers from this file.
#pragma once

#define PARLOOP_VERSION_MAJOR 0
#define PARLOOP_VERSION_MINOR 1
#define PARLOOP_VERSION_PATCH 0

namespace parloop {
inline constexpr int version_major = PARLOOP_VERSION_MAJOR;
inline constexpr int version_minor = PARLOOP_VERSION_MINOR;
inline constexpr int version_patch = PARLOOP_VERSION_PATCH;
inline constexpr const char* version_string = "0.1.0";
}  // namespace parloop
