// SPDX-License-Identifier: MIT
// The threads backend's entry, which Runtime finds (core/runtime.hpp): what a program includes
// (parloop.hpp does). The backend itself (backend.hpp) comes with it inline, or is compiled once
// into the library (PARLOOP_COMPILED).
#pragma once

#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"

namespace parloop::detail {

// The backend's status and opening (entry_impl.hpp).
PARLOOP_FUNC const backend_entry* threads_backend();

// Found by Runtime through a weak reference; `used`, so that every translation unit that
// includes this header emits it, and its call takes the backend into the program (from a static
// library too, which a weak reference alone would not).
[[gnu::used]] inline const backend_entry* threads_backend_entry() { return threads_backend(); }

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/backend/threads/entry_impl.hpp"
#endif
