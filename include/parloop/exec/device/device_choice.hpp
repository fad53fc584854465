// SPDX-License-Identifier: MIT
// How every device backend takes the device its settings ask for (settings::device_for:
// PARLOOP_<BACKEND>_DEVICE, else PARLOOP_DEVICE), as an index or a case-insensitive part of the
// device's name; with neither, a process that is one of several MPI ranks on a node takes the
// GPU of its local rank.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/local_ranks.hpp"

namespace parloop::exec {

using detail::local_rank;

// Which of `count` equal devices a process takes without a selector: its local rank's, modulo
// the count (ranks on one node spread over its GPUs); the first outside an MPI job.
inline std::size_t device_of_local_rank(std::size_t count, int rank) {
  return rank < 0 || count == 0 ? 0 : static_cast<std::size_t>(rank) % count;
}

// The device `selector` (settings::device_for) names among a backend's devices `all`, as the
// backend's `select(all, selector, local rank)` matches it; without a selector, the device of
// this process's local rank. Every backend's status and open choose here, so that no path
// forgets the rank and puts every rank of a node on its first device.
template <class Device, class Select>
Device device_selected(const std::vector<Device>& all, const std::string& selector, Select select) {
  return select(all, selector, local_rank());
}

// Whether `name` contains `part`, ignoring case.
inline bool name_contains(std::string_view name, std::string_view part) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(name.begin(), name.end(), part.begin(), part.end(), same) != name.end();
}

}  // namespace parloop::exec
