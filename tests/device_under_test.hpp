// SPDX-License-Identifier: MIT
// The backend a test run is about: PARLOOP_TEST_BACKEND=host|opencl|cuda. Tests of device loops
// run on OpenCL unless it names cuda; test mains skip a run (exit 77) whose backend is not
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
  for (const parloop::backend_kind b : {parloop::backend_kind::host, parloop::backend_kind::opencl,
                                        parloop::backend_kind::cuda}) {
    if (parloop::backend_name(b) == v) return b;
  }
  throw parloop::argument_error("PARLOOP_TEST_BACKEND='" + std::string(v) + "': use host, opencl or cuda");
}

// The device backend of device tests: OpenCL, or CUDA where PARLOOP_TEST_BACKEND=cuda.
inline parloop::backend_kind device_backend() { return tested_backend(parloop::backend_kind::opencl); }
inline parloop::Runtime device_runtime() { return parloop::Runtime::open(device_backend()); }

}  // namespace parloop_test
