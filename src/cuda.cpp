// SPDX-License-Identifier: MIT
// The CUDA backend, compiled once (PARLOOP_COMPILED): the library parloop::cuda links.
#include "parloop/backend/cuda/entry_impl.hpp"
