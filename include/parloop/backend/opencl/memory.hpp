// SPDX-License-Identifier: MIT
// Device memory on an OpenCL device: what dats and globals plug into (detail::device_memory).
#pragma once

#include <cstddef>
#include <memory>

#include <fmt/format.h>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"

namespace parloop::backend::opencl {

using mem_handle = handle<cl_mem, clReleaseMemObject>;

class buffer final : public parloop::detail::device_buffer {
 public:
  explicit buffer(mem_handle m) : mem_(std::move(m)) {}
  cl_mem get() const { return mem_.get(); }

 private:
  mem_handle mem_;
};

class memory final : public parloop::detail::device_memory {
 public:
  explicit memory(const context& ctx) : ctx_(ctx) {}

  // An allocation the device cannot make is an error that names the size and the device.
  std::unique_ptr<parloop::detail::device_buffer> allocate(std::size_t bytes) override {
    // Some implementations (NVIDIA's) accept any size here and fail at first use; check first.
    if (bytes > ctx_.device().max_allocation) throw out_of_memory(bytes, CL_INVALID_BUFFER_SIZE);
    cl_int status = CL_SUCCESS;
    // OpenCL refuses empty buffers; an empty dat still gets a (one-byte) buffer to bind.
    mem_handle m(clCreateBuffer(ctx_.get(), CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &status));
    if (is_out_of_memory(status)) throw out_of_memory(bytes, status);
    check(status, "clCreateBuffer");
    return std::make_unique<buffer>(std::move(m));
  }

  void upload(parloop::detail::device_buffer& dst, const void* src, std::size_t bytes) override {
    if (bytes == 0) return;
    const cl_int status =
        clEnqueueWriteBuffer(ctx_.queue(), static_cast<buffer&>(dst).get(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr);
    // Where allocation is lazy, the first write is where memory runs out.
    if (is_out_of_memory(status)) throw out_of_memory(bytes, status);
    check(status, "clEnqueueWriteBuffer");
  }

  void download(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    if (bytes == 0) return;
    check(clEnqueueReadBuffer(ctx_.queue(), static_cast<const buffer&>(src).get(), CL_TRUE, 0, bytes, dst, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
  }
  // The in-order queue completes it before the next blocking read returns.
  void download_later(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    if (bytes == 0) return;
    check(clEnqueueReadBuffer(ctx_.queue(), static_cast<const buffer&>(src).get(), CL_FALSE, 0, bytes, dst, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
  }

 private:
  static bool is_out_of_memory(cl_int status) {
    return status == CL_INVALID_BUFFER_SIZE || status == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
           status == CL_OUT_OF_RESOURCES || status == CL_OUT_OF_HOST_MEMORY;
  }
  error out_of_memory(std::size_t bytes, cl_int status) const {
    return error(fmt::format("OpenCL: cannot allocate {} bytes on {} (largest allocation: {} bytes; error {})", bytes,
                             ctx_.device().name, ctx_.device().max_allocation, status));
  }

  const context& ctx_;
};

}  // namespace parloop::backend::opencl
