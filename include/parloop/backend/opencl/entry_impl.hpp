// SPDX-License-Identifier: MIT
// The OpenCL backend's entry (entry.hpp): its status and opening.
#pragma once

#include "parloop/backend/opencl/backend.hpp"
#include "parloop/backend/opencl/entry.hpp"
#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"

namespace parloop::detail {

PARLOOP_FUNC const backend_entry* opencl_backend() {
  static constexpr backend_entry entry{&backend::opencl::detail::status, &backend::opencl::detail::open};
  return &entry;
}

}  // namespace parloop::detail
