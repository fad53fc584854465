// SPDX-License-Identifier: MIT
// The OpenCL backend: a device, its memory, compiling a kernel's IR for a strategy, launching
// it, and combining global reductions. Including this header registers the backend, so that
// PARLOOP_BACKEND=opencl (or the default choice) can open it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/compile.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/backend/opencl/memory.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/core/device_backend.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/exec/grid.hpp"
#include "parloop/exec/strategy.hpp"

namespace parloop::backend::opencl {

class kernel final : public parloop::detail::device_kernel {
 public:
  kernel(compiled c, loaded l, exec::grid_size_functor grid, int block)
      : compiled_(std::move(c)), loaded_(std::move(l)), grid_(std::move(grid)), block_(block) {}

  const compiled& binary() const { return compiled_; }
  cl_kernel get() const { return loaded_.kernel.get(); }
  const exec::grid_size_functor& grid() const { return grid_; }
  int block() const { return block_; }

 private:
  compiled compiled_;
  loaded loaded_;
  exec::grid_size_functor grid_;
  int block_;
};

namespace detail {

// g = g op p for every partial p, with the host backend's semantics.
template <class T>
void combine(access mode, int dim, void* host, const unsigned char* partials, std::size_t items) {
  T* g = static_cast<T*>(host);
  for (std::size_t i = 0; i < items; ++i) {
    for (int k = 0; k < dim; ++k) {
      T p;
      std::memcpy(&p, partials + (i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)) * sizeof(T), sizeof(T));
      if (mode == access::inc) g[k] += p;
      else if (mode == access::min) g[k] = p < g[k] ? p : g[k];
      else g[k] = g[k] < p ? p : g[k];
    }
  }
}

inline std::size_t scalar_size(ir::scalar_type t) {
  return t == ir::scalar_type::int64 || t == ir::scalar_type::float64 ? 8 : 4;
}

}  // namespace detail

class backend final : public parloop::detail::device_backend {
 public:
  // The device facts come from `d`; a test may pass a copy with features removed.
  explicit backend(const device& d) : ctx_(d), memory_(ctx_) {}

  std::unique_ptr<parloop::detail::device_buffer> allocate(std::size_t bytes) override { return memory_.allocate(bytes); }
  void upload(parloop::detail::device_buffer& dst, const void* src, std::size_t bytes) override {
    memory_.upload(dst, src, bytes);
  }
  void download(const parloop::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    memory_.download(src, dst, bytes);
  }

  std::string describe() const override { return "OpenCL " + ctx_.device().describe(); }

  // One element per work-item on a GPU; on a CPU a work-item runs through a slice of the
  // range, which keeps each core streaming through memory.
  strategy default_strategy() const override {
    if (ctx_.device().is_gpu) return split_n_across_workgroups{256};
    return chunked{16, 64};
  }

  std::shared_ptr<const parloop::detail::device_kernel> compile(const ir::kernel& k, const strategy& s) override {
    const codegen::generated_source source = codegen::generate(k, codegen::dialect_kind::opencl, s);
    const device& d = ctx_.device();
    if (source.needs.fp64 && !d.has_fp64()) {
      throw error(fmt::format("kernel '{}' computes in double, and OpenCL device {} lacks cl_khr_fp64", k.name, d.name));
    }
    if (source.needs.int64_atomics && !d.has_int64_atomics()) {
      throw error(fmt::format("kernel '{}' needs 64-bit atomics, and OpenCL device {} lacks cl_khr_int64_base_atomics",
                              k.name, d.name));
    }
    if (source.needs.int64_extended_atomics && !d.has_int64_extended_atomics()) {
      throw error(fmt::format(
          "kernel '{}' needs 64-bit atomic min/max, and OpenCL device {} lacks cl_khr_int64_extended_atomics", k.name,
          d.name));
    }
    const int block = exec::block_size(s);
    if (static_cast<std::size_t>(block) > d.max_work_group_size) {
      throw argument_error(fmt::format("strategy {}: a block of {} work-items exceeds OpenCL device {}'s maximum of {}",
                                       exec::describe(s), block, d.name, d.max_work_group_size));
    }
    compiled c = build(ctx_, source);
    loaded l = load(ctx_, c);
    return std::make_shared<kernel>(std::move(c), std::move(l), exec::grid_size(s), block);
  }

  void launch(const parloop::detail::device_kernel& dk, index_t start, index_t end,
              std::span<const parloop::detail::device_buffer* const> buffers,
              std::span<const parloop::detail::reduction_target> reductions) override {
    const auto& k = static_cast<const kernel&>(dk);
    const std::int64_t groups = k.grid()(start, end, exec::device_facts{ctx_.device().compute_units});
    // An empty range runs nothing: every reduction keeps its value.
    if (groups == 0) return;
    const std::size_t block = static_cast<std::size_t>(k.block());
    const std::size_t items = static_cast<std::size_t>(groups) * block;

    // A cl_kernel's arguments are shared state: one launch sets and enqueues at a time.
    std::lock_guard lock(mutex_);
    cl_uint index = 0;
    const cl_int s = start, e = end;
    check(clSetKernelArg(k.get(), index++, sizeof s, &s), "clSetKernelArg(start)");
    check(clSetKernelArg(k.get(), index++, sizeof e, &e), "clSetKernelArg(end)");
    for (const parloop::detail::device_buffer* b : buffers) {
      const cl_mem m = static_cast<const buffer*>(b)->get();
      check(clSetKernelArg(k.get(), index++, sizeof m, &m), "clSetKernelArg(buffer)");
    }
    // Each work-group leaves one partial per component of each reduction.
    const std::size_t n_groups = static_cast<std::size_t>(groups);
    if (partials_.size() < reductions.size()) partials_.resize(reductions.size());
    for (std::size_t r = 0; r < reductions.size(); ++r) {
      const std::size_t bytes = n_groups * static_cast<std::size_t>(reductions[r].dim) * detail::scalar_size(reductions[r].type);
      scratch& p = partials_[r];
      if (p.bytes < bytes) {
        p.buffer = memory_.allocate(bytes);
        p.bytes = bytes;
      }
      const cl_mem m = static_cast<const buffer&>(*p.buffer).get();
      check(clSetKernelArg(k.get(), index++, sizeof m, &m), "clSetKernelArg(partials)");
    }
    const std::size_t global = items;
    check(clEnqueueNDRangeKernel(ctx_.queue(), k.get(), 1, nullptr, &global, &block, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");

    // Combine the groups' partials with the global's value.
    for (std::size_t r = 0; r < reductions.size(); ++r) {
      const parloop::detail::reduction_target& t = reductions[r];
      const std::size_t bytes = n_groups * static_cast<std::size_t>(t.dim) * detail::scalar_size(t.type);
      if (staging_.size() < bytes) staging_.resize(bytes);
      memory_.download(*partials_[r].buffer, staging_.data(), bytes);
      switch (t.type) {
        case ir::scalar_type::int32: detail::combine<std::int32_t>(t.mode, t.dim, t.host, staging_.data(), n_groups); break;
        case ir::scalar_type::int64: detail::combine<std::int64_t>(t.mode, t.dim, t.host, staging_.data(), n_groups); break;
        case ir::scalar_type::float32: detail::combine<float>(t.mode, t.dim, t.host, staging_.data(), n_groups); break;
        case ir::scalar_type::float64: detail::combine<double>(t.mode, t.dim, t.host, staging_.data(), n_groups); break;
        case ir::scalar_type::boolean: break;
      }
    }
  }

  const context& opencl_context() const { return ctx_; }

 private:
  struct scratch {
    std::unique_ptr<parloop::detail::device_buffer> buffer;
    std::size_t bytes = 0;
  };

  context ctx_;
  memory memory_;
  std::mutex mutex_;
  std::vector<scratch> partials_;
  std::vector<unsigned char> staging_;
};

namespace detail {

inline backend_status status() {
  try {
    const device d = select_device(devices(), device_selector());
    return {backend_kind::opencl, true, ""};
  } catch (const backend_unavailable& e) {
    return {backend_kind::opencl, false, e.what()};
  }
}

inline std::shared_ptr<parloop::detail::device_backend> make() {
  return std::make_shared<backend>(select_device(devices(), device_selector()));
}

inline const bool registered = parloop::detail::register_backend(backend_kind::opencl, {&status, &make});

}  // namespace detail

}  // namespace parloop::backend::opencl
