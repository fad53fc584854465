// SPDX-License-Identifier: MIT
// The threads backend's entry (entry.hpp): its status and opening.
#pragma once

#include "parloop/backend/threads/backend.hpp"
#include "parloop/backend/threads/entry.hpp"
#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"

namespace parloop::detail {

PARLOOP_FUNC const backend_entry* threads_backend() {
  static constexpr backend_entry entry{&threads_status, &open_threads};
  return &entry;
}

}  // namespace parloop::detail
