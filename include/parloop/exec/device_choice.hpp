// SPDX-License-Identifier: MIT
// How every device backend reads which device the environment asks for: PARLOOP_<BACKEND>_DEVICE,
// else PARLOOP_DEVICE, as an index or a case-insensitive part of the device's name.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

namespace parloop::exec {

// The selector from the environment: `backend_variable` (PARLOOP_OPENCL_DEVICE, ...), else
// PARLOOP_DEVICE; empty when neither is set.
inline std::string device_selector(const char* backend_variable) {
  for (const char* name : {backend_variable, "PARLOOP_DEVICE"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
  }
  return {};
}

// Whether the environment names a device of this backend in particular (`backend_variable`):
// then a best-backend choice that cannot have it fails rather than taking another backend.
inline bool backend_device_named(const char* backend_variable) {
  const char* v = std::getenv(backend_variable);
  return v != nullptr && *v != '\0';
}

// Whether `name` contains `part`, ignoring case.
inline bool name_contains(std::string_view name, std::string_view part) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(name.begin(), name.end(), part.begin(), part.end(), same) != name.end();
}

}  // namespace parloop::exec
