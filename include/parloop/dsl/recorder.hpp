// SPDX-License-Identifier: MIT
// The recorder: the IR builder a trace writes into, active on this thread only while tracing.
#pragma once

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/ir/builder.hpp"

namespace parloop::dsl {

namespace detail {
inline ir::builder*& active_builder() {
  thread_local ir::builder* builder = nullptr;
  return builder;
}
}  // namespace detail

// Whether this thread is tracing a kernel now.
PARLOOP_INLINE bool tracing() { return detail::active_builder() != nullptr; }

inline ir::builder& recorder() {
  ir::builder* b = detail::active_builder();
  if (b == nullptr) {
    throw trace_error("a symbolic kernel value was used outside of its kernel (kept past the kernel call?)");
  }
  return *b;
}

// Makes a builder the recorder for the lifetime of the scope.
class trace_scope {
 public:
  explicit trace_scope(ir::builder& b) : previous_(detail::active_builder()) { detail::active_builder() = &b; }
  ~trace_scope() { detail::active_builder() = previous_; }
  trace_scope(const trace_scope&) = delete;
  trace_scope& operator=(const trace_scope&) = delete;

 private:
  ir::builder* previous_;
};

}  // namespace parloop::dsl
