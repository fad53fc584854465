// SPDX-License-Identifier: MIT
// The OpenCL backend, compiled once (PARLOOP_COMPILED): the library parloop::opencl links.
#include "parloop/backend/opencl/entry_impl.hpp"
