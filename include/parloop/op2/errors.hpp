// SPDX-License-Identifier: MIT
// How OP2's API reports a parloop::error: OP2's applications catch nothing, and OP2 itself prints
// what was wrong and exits; so do its calls here -- the message on standard error, exit status 1
// -- unless the program asks for the exceptions (throw_errors(true)), as a C++ caller that
// handles them would.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "parloop/error.hpp"

namespace parloop::op2 {

inline bool& errors_thrown() {
  static bool thrown = false;
  return thrown;
}
inline void throw_errors(bool on) { errors_thrown() = on; }

// How the program ends after an error: over MPI, the whole job (op2/distributed.hpp sets it), so
// that no rank waits for the one that stopped.
inline void (*&on_fatal_error())() {
  static void (*ends)() = nullptr;
  return ends;
}

template <class F>
decltype(auto) guarded(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const error& e) {
    if (errors_thrown()) throw;
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.what());
    if (on_fatal_error() != nullptr) on_fatal_error()();
    std::exit(1);
  }
}

}  // namespace parloop::op2
