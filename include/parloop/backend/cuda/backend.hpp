// SPDX-License-Identifier: MIT
// The CUDA backend: the device the environment selects, its memory, building generated source
// into a kernel record and a launcher with NVRTC, and loading a record. The driver and NVRTC are
// loaded at run time: a program built with this backend runs on a machine without them, and
// says why CUDA is unavailable. Including this header makes the backend available to every
// Runtime of the program.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/cuda/compile.hpp"
#include "parloop/backend/cuda/device.hpp"
#include "parloop/backend/cuda/launch.hpp"
#include "parloop/backend/cuda/memory.hpp"
#include "parloop/backend/cuda/nvrtc.hpp"
#include "parloop/cache/device_signature.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/cuda.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::cuda {

// Two elements per thread, moved as vectors, blocks of 128: the fastest shape of the ones
// benchmarks/bench_cuda.cpp measures for streaming loops, hand-written ones included
// (docs/performance.md, CUDA launches, triads, reductions).
inline constexpr vectors_across_workgroups default_loop_strategy{128, 2};

class backend final : public parloop::detail::device_backend {
 public:
  // Throws backend_unavailable where NVRTC is missing or cannot compile for the device.
  // On `d`, as `s` says.
  backend(const device& d, const parloop::settings& s)
      : parloop::detail::device_backend(s, parloop::detail::gpu_defaults),
        ctx_(std::make_shared<const context>(d)),
        memory_(ctx_),
        target_(target_for(10 * d.major + d.minor, nvrtc::get().supported_archs(), s.fast_math)) {
    signature_.backend = backend_kind::cuda;
    signature_.platform = "CUDA";
    signature_.device = d.name;
    // A CUBIN runs under any driver that runs the device; PTX is compiled by the driver.
    if (target_.ptx) signature_.driver = version_text(d.driver_version);
    signature_.compiler = nvrtc::get().name();
    signature_.architecture = d.arch();
    signature_.options = target_.options_text();
  }

  std::string describe() const override { return "CUDA " + ctx_->dev().describe(); }

  strategy default_strategy() const override { return default_loop_strategy; }
  // A reduction costs each block a combine, a fence and a ticket: a grid sized to the device
  // spreads that over many elements.
  strategy default_reduction_strategy() const override { return grid_stride{256, 4}; }
  // Blocks of 128 to 512, one or two elements or vectors of two or four per thread, and grids
  // of four or eight blocks of 256 per multiprocessor.
  std::vector<strategy> tuning_strategies() const override {
    return parloop::detail::gpu_tuning_strategies(default_loop_strategy);
  }
  const codegen::dialect& dialect() const override {
    static const codegen::cuda_dialect cuda;
    return cuda;
  }
  const cache::device_signature& signature() const override { return signature_; }
  ir::device_facts facts() const override { return {ctx_->dev().multiprocessors}; }

  std::unique_ptr<parloop::detail::launcher> build(const codegen::kernel_source& source) override {
    check_device_can_run(source);
    compiled c = cuda::build(source.code, target_);
    return std::make_unique<launcher>(ctx_, std::move(c.binary), c.format, std::move(c.entry), source.grid,
                                      source.block, source.layout);
  }

  std::unique_ptr<parloop::detail::launcher> load(const cache::kernel_record& record) override {
    if (record.backend != backend_kind::cuda || record.format != target_.format()) {
      throw error(parloop::detail::format("CUDA: kernel record '{}' is not {} for this device", record.entry,
                                          target_.ptx ? "PTX" : "a CUBIN"));
    }
    return std::make_unique<launcher>(ctx_, record.binary, record.format, record.entry, record.grid, record.block,
                                      record.layout);
  }

  const context& cuda_context() const { return *ctx_; }
  // What a launcher made by hand keeps.
  const std::shared_ptr<const context>& shared_context() const { return ctx_; }
  const target& compile_target() const { return target_; }

 private:
  parloop::detail::device_memory& memory() override { return memory_; }

  // What the source needs and the device lacks is refused before NVRTC sees it.
  void check_device_can_run(const codegen::kernel_source& source) const {
    const device& d = ctx_->dev();
    const codegen::generated_source& code = source.code;
    if (code.needs.float64_atomic_add && 10 * d.major + d.minor < 60) {
      throw error(parloop::detail::format(
          "kernel '{}' adds doubles atomically (INC of a double through a map), and CUDA device {} "
          "({}) has no such atomic before sm_60",
          code.kernel, d.name, d.arch()));
    }
    if (source.block > d.max_threads_per_block) {
      throw argument_error(parloop::detail::format("a block of {} threads exceeds CUDA device {}'s maximum of {}",
                                                   source.block, d.name, d.max_threads_per_block));
    }
    if (code.needs.group_memory > d.shared_memory_per_block) {
      throw argument_error(parloop::detail::format(
          "kernel '{}': its global reductions and staged increments (conflicts::blocks) "
          "need {} bytes of shared memory for a block of {}, and CUDA device {} has {}; "
          "use a smaller block, or conflicts::colors or atomics",
          code.kernel, code.needs.group_memory, source.block, d.name, d.shared_memory_per_block));
    }
  }

  // Shared with every buffer, module and launcher made here: whichever goes last releases it.
  std::shared_ptr<const context> ctx_;
  cuda::memory memory_;
  target target_;
  cache::device_signature signature_;
};

namespace detail {

// Unavailable without a driver, a device, NVRTC, or an NVRTC that compiles for the device. Where
// `s` names a device of this backend in particular and it is not there, choosing the best
// backend fails rather than quietly taking another.
inline backend_status status(const settings& s) {
  return parloop::detail::status_with(backend_kind::cuda, s.device_named_for(backend_kind::cuda), [&] {
    const device d = chosen_device(s);
    target_for(10 * d.major + d.minor, nvrtc::get().supported_archs(), false);
    return false;
  });
}

inline std::string open(parloop::detail::runtime_state& state) {
  return parloop::detail::open_with(
      state, [&] { return std::make_shared<backend>(chosen_device(state.settings), state.settings); });
}

}  // namespace detail
}  // namespace parloop::backend::cuda

PARLOOP_COLD_END
