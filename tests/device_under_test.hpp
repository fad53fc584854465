// SPDX-License-Identifier: MIT
// The backend a test run is about: PARLOOP_TEST_BACKEND=host|threads|opencl|cuda. Tests of device
// loops run on OpenCL unless it names another; test mains skip a run (exit 77) whose backend is not
// available here, saying why.
#pragma once

#include <cstdlib>
#include <string>

#include <parloop/core/runtime.hpp>

namespace parloop_test {

// The backend PARLOOP_TEST_BACKEND names; `otherwise` when it is unset or empty.
inline parloop::backend_kind tested_backend(parloop::backend_kind otherwise) {
  const char* v = std::getenv("PARLOOP_TEST_BACKEND");
  if (v == nullptr || *v == '\0') return otherwise;
  for (const parloop::backend_kind b : {parloop::backend_kind::host, parloop::backend_kind::threads,
                                        parloop::backend_kind::opencl, parloop::backend_kind::cuda}) {
    if (parloop::backend_name(b) == v) return b;
  }
  throw parloop::argument_error("PARLOOP_TEST_BACKEND='" + std::string(v) + "': use host, threads, opencl or cuda");
}

// The backend of device tests: OpenCL, or the one PARLOOP_TEST_BACKEND names (threads, cuda).
inline parloop::backend_kind device_backend() { return tested_backend(parloop::backend_kind::opencl); }
inline parloop::Runtime device_runtime() { return parloop::Runtime::open(device_backend()); }
// Whether the backend of device tests compiles kernels (OpenCL, CUDA), or runs the lambda
// (threads): tests of what compiling does -- counts of compiles and copies, kernels from C
// source, dat layouts, index checks in generated code -- are tagged [compiled] and run on the
// former only; the loops' answers are checked on all.
inline bool compiles_kernels() { return !parloop::runs_lambdas(device_backend()); }

}  // namespace parloop_test
