// SPDX-License-Identifier: MIT
// Device memory on an OpenCL device: what dats and globals plug into (detail::device_memory).
#pragma once

#include <cstddef>
#include <memory>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/staged_copies.hpp"
#include "parloop/format.hpp"

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

  // The host may change its data right after: a small copy is staged in pinned memory and not
  // waited for; a larger one is waited for.
  void upload(parloop::detail::device_buffer& dst, const void* src, std::size_t bytes) override {
    if (bytes == 0) return;
    const cl_mem to = static_cast<buffer&>(dst).get();
    const bool staged = uploads_.stage(
        src, bytes, [&] { return pinned() + exec::staged_copies::capacity; },
        [&](unsigned char* at) {
          const cl_int status = clEnqueueWriteBuffer(ctx_.queue(), to, CL_FALSE, 0, bytes, at, 0, nullptr, nullptr);
          if (is_out_of_memory(status)) throw out_of_memory(bytes, status);
          check(status, "clEnqueueWriteBuffer");
        },
        [&] { wait(); });
    if (staged) return;
    const cl_int status = clEnqueueWriteBuffer(ctx_.queue(), to, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr);
    // Where allocation is lazy, the first write is where memory runs out.
    if (is_out_of_memory(status)) throw out_of_memory(bytes, status);
    check(status, "clEnqueueWriteBuffer");
  }

  void download(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    if (bytes == 0) {
      wait();
      return;
    }
    check(clEnqueueReadBuffer(ctx_.queue(), static_cast<const buffer&>(src).get(), CL_TRUE, 0, bytes, dst, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
    // A blocking read on the in-order queue returns after everything before it.
    staged_.arrived();
    uploads_.waited();
  }

  void wait() override {
    check(clFinish(ctx_.queue()), "clFinish");
    staged_.arrived();
    uploads_.waited();
  }

  // Rides along with the next download. NVIDIA's OpenCL copies into pageable memory
  // synchronously even when asked not to block, so a small copy goes into pinned memory (a
  // mapped CL_MEM_ALLOC_HOST_PTR buffer) and reaches dst when that download returns.
  void download_later(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    staged_.stage(
        dst, bytes, [&] { return pinned(); },
        [&](unsigned char* at) {
          check(clEnqueueReadBuffer(ctx_.queue(), static_cast<const buffer&>(src).get(), CL_FALSE, 0, bytes, at, 0,
                                    nullptr, nullptr),
                "clEnqueueReadBuffer");
        },
        [&] { download(src, dst, bytes); });
  }

  memory(const memory&) = delete;
  memory& operator=(const memory&) = delete;
  ~memory() override {
    // A destructor cannot report a failure: the buffer goes with the context either way.
    if (pinned_ != nullptr) {
      clEnqueueUnmapMemObject(ctx_.queue(), staging_.get(), pinned_, 0, nullptr, nullptr);
      clFinish(ctx_.queue());
    }
  }

 private:
  static bool is_out_of_memory(cl_int status) {
    return status == CL_INVALID_BUFFER_SIZE || status == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
           status == CL_OUT_OF_RESOURCES || status == CL_OUT_OF_HOST_MEMORY;
  }
  error out_of_memory(std::size_t bytes, cl_int status) const {
    return error(
        parloop::detail::format("OpenCL: cannot allocate {} bytes on {} (largest allocation: {} bytes; error {})",
                                bytes, ctx_.device().name, ctx_.device().max_allocation, status));
  }

  unsigned char* pinned() {
    if (pinned_ == nullptr) {
      cl_int status = CL_SUCCESS;
      staging_ =
          mem_handle(clCreateBuffer(ctx_.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                    exec::staged_copies::capacity + exec::staged_uploads::capacity, nullptr, &status));
      check(status, "clCreateBuffer");
      void* mapped = clEnqueueMapBuffer(ctx_.queue(), staging_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                        exec::staged_copies::capacity + exec::staged_uploads::capacity, 0, nullptr,
                                        nullptr, &status);
      check(status, "clEnqueueMapBuffer");
      pinned_ = static_cast<unsigned char*>(mapped);
    }
    return pinned_;
  }

  const context& ctx_;
  mem_handle staging_;
  unsigned char* pinned_ = nullptr;
  exec::staged_copies staged_;
  exec::staged_uploads uploads_;
};

}  // namespace parloop::backend::opencl
