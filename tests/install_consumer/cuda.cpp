// SPDX-License-Identifier: MIT
// The CUDA component's headers, compiled by a consumer.
#include <parloop/backend/cuda/compile.hpp>

bool nvrtc_found() {
  try {
    return parloop::backend::cuda::nvrtc::get().version_number() > 0;
  } catch (const parloop::error&) {
    return false;
  }
}
