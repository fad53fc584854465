// SPDX-License-Identifier: MIT
// The CUDA backend's entry (entry.hpp): its status and opening.
#pragma once

#include "parloop/backend/cuda/backend.hpp"
#include "parloop/backend/cuda/entry.hpp"
#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"

namespace parloop::detail {

PARLOOP_FUNC const backend_entry* cuda_backend() {
  static constexpr backend_entry entry{&backend::cuda::detail::status, &backend::cuda::detail::open};
  return &entry;
}

}  // namespace parloop::detail
