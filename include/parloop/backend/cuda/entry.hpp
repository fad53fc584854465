// SPDX-License-Identifier: MIT
// The CUDA backend's entry, which Runtime finds (core/runtime.hpp): what a program linked with
// parloop::cuda includes (parloop.hpp does). The backend itself (backend.hpp) comes with it
// inline, or is compiled once into the library that parloop::cuda links (PARLOOP_COMPILED).
#pragma once

#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"

namespace parloop::detail {

// The backend's status and opening (entry_impl.hpp).
PARLOOP_FUNC const backend_entry* cuda_backend();

// Found by Runtime through a weak reference; `used`, so that every translation unit that
// includes this header emits it, and its call takes the backend into the program (from a static
// library too, which a weak reference alone would not).
[[gnu::used]] inline const backend_entry* cuda_backend_entry() { return cuda_backend(); }

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/backend/cuda/entry_impl.hpp"
#endif
