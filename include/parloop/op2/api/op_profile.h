// SPDX-License-Identifier: MIT
// OP2's profiling calls with OP2's names: named sections, nested, timed on the wall clock, and a
// table of them at op_profile_output.
#pragma once

#include "parloop/op2/errors.hpp"
#include "parloop/op2/output.hpp"

inline void op_profile_start(const char* name) { parloop::op2::profile::instance().enter(name); }
inline void op_profile_enter(const char* name) { parloop::op2::profile::instance().enter(name); }
inline void op_profile_enter_kernel(const char* name, const char* target, const char* variant) {
  (void)target;
  (void)variant;
  parloop::op2::profile::instance().enter(name);
}
inline void op_profile_next(const char* name) {
  parloop::op2::profile::instance().exit();
  parloop::op2::profile::instance().enter(name);
}
inline void op_profile_exit() {
  parloop::op2::guarded([] { parloop::op2::profile::instance().exit(); });
}
inline void op_profile_end() { parloop::op2::profile::instance().end(); }
inline void op_profile_output() { parloop::op2::profile::instance().output(); }
