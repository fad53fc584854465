// SPDX-License-Identifier: MIT
// OP2's op_par_loop with OP2's names, over parloop: one executable whose loops run on the
// backend chosen at run time (PARLOOP_BACKEND). The macro captures the kernel function's name and
// the calling file, by which the kernel's C source is found for devices (op2/kernel_source.hpp).
#pragma once

#include "op_lib_cpp.h"
#include "parloop/op2/loop.hpp"

// OP2's accessor for a component of an argument, which its code generators redefine for their
// layouts; parloop hands a kernel each element's values side by side on every backend.
#define OP2_STRIDE(arr, idx) arr[idx]

#define op_par_loop(kernel, name, set, ...) \
  parloop::op2::guarded(                    \
      [&] { parloop::op2::par_loop(kernel, #kernel, __FILE__, name, set __VA_OPT__(, ) __VA_ARGS__); })
