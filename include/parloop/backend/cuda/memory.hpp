// SPDX-License-Identifier: MIT
// Device memory on a CUDA device: what dats and globals plug into (detail::device_memory). Copies
// run on the context's stream, in order with its kernels; a copy to the host waits for them.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "parloop/backend/cuda/device.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/staged_copies.hpp"
#include "parloop/format.hpp"

namespace parloop::backend::cuda {

// A buffer keeps its context: it may be freed after the backend that made it (a dat that
// outlives its runtime, the seam's scratch).
class buffer final : public parloop::detail::device_buffer {
 public:
  buffer(std::shared_ptr<const context> ctx, CUdeviceptr p) : ctx_(std::move(ctx)), pointer_(p) {}
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  // cuMemFree synchronises with the device first: no enqueued work still uses the memory. A
  // destructor cannot report a failure.
  ~buffer() override {
    ctx_->make_current_quietly();
    ctx_->api().mem_free(pointer_);
  }
  CUdeviceptr get() const { return pointer_; }

 private:
  std::shared_ptr<const context> ctx_;
  CUdeviceptr pointer_;
};

class memory final : public parloop::detail::device_memory {
 public:
  explicit memory(std::shared_ptr<const context> ctx) : ctx_(std::move(ctx)) {}
  memory(const memory&) = delete;
  memory& operator=(const memory&) = delete;
  ~memory() override {
    if (pinned_ != nullptr) {
      ctx_->make_current_quietly();
      ctx_->api().mem_free_host(pinned_);
    }
  }

  // An allocation the device cannot make is an error that names the size and the device.
  std::unique_ptr<parloop::detail::device_buffer> allocate(std::size_t bytes) override {
    // More than the device has is refused without asking the driver.
    if (bytes > ctx_->dev().total_memory) throw out_of_memory(bytes, CUDA_ERROR_OUT_OF_MEMORY);
    ctx_->make_current();
    CUdeviceptr p = 0;
    // CUDA refuses empty allocations; an empty dat still gets a (one-byte) buffer to bind.
    const CUresult status = ctx_->api().mem_alloc(&p, bytes == 0 ? 1 : bytes);
    if (status == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory(bytes, status);
    ctx_->api().check(status, "cuMemAlloc");
    return std::make_unique<buffer>(ctx_, p);
  }

  // The host may change its data right after: a small copy is staged in pinned memory and not
  // waited for; a larger one is waited for.
  void upload(parloop::detail::device_buffer& dst, const void* src, std::size_t bytes) override {
    if (bytes == 0) return;
    ctx_->make_current();
    const driver& d = ctx_->api();
    const CUdeviceptr to = static_cast<buffer&>(dst).get();
    const bool staged = uploads_.stage(
        src, bytes, [&] { return pinned() + exec::staged_copies::capacity; },
        [&](unsigned char* at) { d.check(d.memcpy_htod_async(to, at, bytes, ctx_->stream()), "cuMemcpyHtoDAsync"); },
        [&] { wait(); });
    if (staged) return;
    d.check(d.memcpy_htod_async(to, src, bytes, ctx_->stream()), "cuMemcpyHtoDAsync");
    wait();
  }

  void download(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    ctx_->make_current();
    if (bytes != 0) {
      ctx_->api().check(
          ctx_->api().memcpy_dtoh_async(dst, static_cast<const buffer&>(src).get(), bytes, ctx_->stream()),
          "cuMemcpyDtoHAsync");
    }
    wait();
  }

  void wait() override {
    ctx_->make_current();
    ctx_->api().check(ctx_->api().stream_synchronize(ctx_->stream()), "cuStreamSynchronize");
    staged_.arrived();
    uploads_.waited();
  }

  // Rides along with the next download: copied without waiting into pinned memory (a copy into
  // pageable memory would wait), and moved to dst when that download returns.
  void download_later(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    staged_.stage(
        dst, bytes, [&] { return pinned(); },
        [&](unsigned char* at) {
          ctx_->api().check(
              ctx_->api().memcpy_dtoh_async(at, static_cast<const buffer&>(src).get(), bytes, ctx_->stream()),
              "cuMemcpyDtoHAsync");
        },
        [&] { download(src, dst, bytes); });
  }

 private:
  error out_of_memory(std::size_t bytes, CUresult status) const {
    return error(parloop::detail::format("CUDA: cannot allocate {} bytes on {} ({} bytes in all; error {})", bytes,
                                         ctx_->dev().name, ctx_->dev().total_memory, static_cast<int>(status)));
  }

  unsigned char* pinned() {
    ctx_->make_current();
    if (pinned_ == nullptr) {
      void* p = nullptr;
      ctx_->api().check(
          ctx_->api().mem_host_alloc(&p, exec::staged_copies::capacity + exec::staged_uploads::capacity, 0),
          "cuMemHostAlloc");
      pinned_ = static_cast<unsigned char*>(p);
    }
    return pinned_;
  }

  std::shared_ptr<const context> ctx_;  // shared with every buffer made here
  unsigned char* pinned_ = nullptr;
  exec::staged_copies staged_;
  exec::staged_uploads uploads_;
};

}  // namespace parloop::backend::cuda
