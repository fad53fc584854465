// SPDX-License-Identifier: MIT
// How every device backend reads which device the environment asks for: PARLOOP_<BACKEND>_DEVICE,
// else PARLOOP_DEVICE, as an index or a case-insensitive part of the device's name; with neither,
// a process that is one of several MPI ranks on a node takes the GPU of its local rank.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/environment.hpp"
#include "parloop/core/local_ranks.hpp"

namespace parloop::exec {

// The selector from the environment: `backend_variable` (PARLOOP_OPENCL_DEVICE, ...), else
// PARLOOP_DEVICE; empty when neither is set.
inline std::string device_selector(const char* backend_variable) {
  for (const char* name : {backend_variable, "PARLOOP_DEVICE"}) {
    if (const char* v = detail::environment_value(name)) return v;
  }
  return {};
}

// Whether the environment names a device of this backend in particular (`backend_variable`):
// then a best-backend choice that cannot have it fails rather than taking another backend.
inline bool backend_device_named(const char* backend_variable) {
  return detail::environment_value(backend_variable) != nullptr;
}

using detail::local_rank;

// Which of `count` equal devices a process takes without a selector: its local rank's, modulo
// the count (ranks on one node spread over its GPUs); the first outside an MPI job.
inline std::size_t device_of_local_rank(std::size_t count, int rank) {
  return rank < 0 || count == 0 ? 0 : static_cast<std::size_t>(rank) % count;
}

// The device the environment selects from a backend's devices `all`: the selector
// (`backend_variable`, else PARLOOP_DEVICE) as the backend's `select(all, selector, local rank)`
// matches it; without a selector, the device of this process's local rank. Every backend's
// status and open choose here, so that no path forgets the rank (ranks on a node once all
// opened device 0).
template <class Device, class Select>
Device device_from_environment(const std::vector<Device>& all, const char* backend_variable, Select select) {
  return select(all, device_selector(backend_variable), local_rank());
}

// Whether `name` contains `part`, ignoring case.
inline bool name_contains(std::string_view name, std::string_view part) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(name.begin(), name.end(), part.begin(), part.end(), same) != name.end();
}

}  // namespace parloop::exec
