// SPDX-License-Identifier: MIT
// The OpenCL API as parloop uses it: the 1.2 interface, and owning handles for its objects.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>
#include <utility>

#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::backend::opencl {

// Owns one reference to an OpenCL object.
template <class T, cl_int (*Release)(T)>
class handle {
 public:
  handle() = default;
  explicit handle(T object) : object_(object) {}
  handle(handle&& o) noexcept : object_(std::exchange(o.object_, nullptr)) {}
  handle& operator=(handle&& o) noexcept {
    if (this != &o) {
      reset();
      object_ = std::exchange(o.object_, nullptr);
    }
    return *this;
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() { reset(); }

  T get() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  void reset() {
    if (object_ != nullptr) Release(object_);
    object_ = nullptr;
  }
  T object_ = nullptr;
};

using context_handle = handle<cl_context, clReleaseContext>;
using program_handle = handle<cl_program, clReleaseProgram>;
using kernel_handle = handle<cl_kernel, clReleaseKernel>;

// Throws if an OpenCL call failed, naming the call and the error code.
inline void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw error(parloop::detail::format("OpenCL: {} failed with error {}", call, status));
}

}  // namespace parloop::backend::opencl
