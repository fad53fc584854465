// SPDX-License-Identifier: MIT
// Launching on CUDA: a module loaded from a CUBIN (or PTX, which the driver compiles), its
// kernel, and cuLaunchKernel on the context's stream with the parameters built on the stack.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parloop/backend/cuda/device.hpp"
#include "parloop/backend/cuda/memory.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/format.hpp"

namespace parloop::backend::cuda {

// A module loaded in a context, which it keeps: a launcher may go after its backend.
class loaded_module {
 public:
  loaded_module(std::shared_ptr<const context> ctx, const std::vector<unsigned char>& binary) : ctx_(std::move(ctx)) {
    ctx_->make_current();
    ctx_->api().check(ctx_->api().module_load_data(&module_, binary.data()), "cuModuleLoadData");
  }
  loaded_module(const loaded_module&) = delete;
  loaded_module& operator=(const loaded_module&) = delete;
  // A destructor cannot report a failure.
  ~loaded_module() {
    ctx_->make_current_quietly();
    ctx_->api().module_unload(module_);
  }

  const context& owner() const { return *ctx_; }

  CUfunction function(const std::string& entry) const {
    CUfunction f = nullptr;
    ctx_->api().check(ctx_->api().module_get_function(&f, module_, entry.c_str()), "cuModuleGetFunction");
    return f;
  }

 private:
  std::shared_ptr<const context> ctx_;
  CUmodule module_ = nullptr;
};

class launcher final : public parloop::detail::launcher {
 public:
  // Buffers a launch can bind: the parameters are built in fixed arrays on the stack, and 4 KiB
  // of parameters is what every architecture accepts.
  static constexpr std::size_t max_buffers = (4096 - 2 * sizeof(int)) / sizeof(CUdeviceptr);

  // Keeps the binary, so that record() gives it back without compiling again.
  launcher(std::shared_ptr<const context> shared, std::vector<unsigned char> binary, cache::binary_format format,
           std::string entry, ir::grid_size_functor grid, int block, std::vector<ir::kernel_buffer> layout)
      : parloop::detail::launcher(std::move(grid), block, std::move(layout)),
        module_(std::move(shared), binary),
        binary_(std::move(binary)),
        format_(format),
        entry_(std::move(entry)),
        function_(module_.function(entry_)) {
    if (this->layout().size() > max_buffers) {
      throw argument_error(parloop::detail::format("kernel '{}' binds {} buffers; a CUDA launch takes at most {}",
                                                   entry_, this->layout().size(), max_buffers));
    }
    // A kernel may run with fewer threads per block than the device allows (registers).
    int most = 0;
    ctx().api().check(ctx().api().func_get_attribute(&most, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function_),
                      "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
    if (this->block() > most) {
      throw argument_error(
          parloop::detail::format("kernel '{}': a block of {} threads exceeds the {} CUDA device {} runs it with",
                                  entry_, this->block(), most, ctx().dev().name));
    }
  }

  void enqueue(index_t start, index_t end, std::int64_t groups,
               std::span<const parloop::detail::device_buffer* const> buffers, std::span<const int> strides) override {
    if (groups > max_groups) {
      throw argument_error(
          parloop::detail::format("kernel '{}': a launch of {} blocks exceeds CUDA's {}", entry_, groups, max_groups));
    }
    int s = start, e = end;
    std::array<CUdeviceptr, max_buffers> pointers;
    std::array<int, max_buffers> ints;
    std::array<void*, max_buffers + 2> params;
    params[0] = &s;
    params[1] = &e;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      pointers[i] = static_cast<const buffer*>(buffers[i])->get();
      params[i + 2] = &pointers[i];
    }
    for (std::size_t i = 0; i < strides.size(); ++i) {
      ints[i] = strides[i];
      params[buffers.size() + i + 2] = &ints[i];
    }
    const driver& d = ctx().api();
    ctx().make_current();
    d.check(d.launch_kernel(function_, static_cast<unsigned>(groups), 1, 1, static_cast<unsigned>(block()), 1, 1, 0,
                            ctx().stream(), params.data(), nullptr),
            "cuLaunchKernel");
  }

  cache::kernel_record record() const override {
    return {backend_kind::cuda,
            format_,
            entry_,
            binary_,
            grid(),
            block(),
            std::vector<ir::kernel_buffer>(layout().begin(), layout().end())};
  }

 private:
  const context& ctx() const { return module_.owner(); }

  // gridDim.x of every architecture parloop compiles for.
  static constexpr std::int64_t max_groups = 2147483647;

  loaded_module module_;  // keeps the context
  std::vector<unsigned char> binary_;
  cache::binary_format format_;
  std::string entry_;
  CUfunction function_;
};

}  // namespace parloop::backend::cuda
