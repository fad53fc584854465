// SPDX-License-Identifier: MIT
// The OpenCL backend: the device the environment selects, its memory, building generated
// source into a kernel record and a launcher, and loading a record. Runtime finds it
// through entry.hpp.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/compile.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/backend/opencl/launch.hpp"
#include "parloop/backend/opencl/memory.hpp"
#include "parloop/cache/device_signature.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/codegen/opencl.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/types.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::opencl {

// What a binary built on `d` with `options` depends on besides its source.
inline cache::device_signature signature_of(const device& d, const std::string& options) {
  return {.backend = backend_kind::opencl,
          .platform = d.platform_name + " / " + d.platform_version,
          .device = d.name,
          .driver = d.driver_version,
          .compiler = d.c_version,
          .architecture = d.version,
          .options = options};
}

class backend final : public parloop::detail::device_backend {
 public:
  // The device facts come from `d`; a test may pass a copy with features removed.
  backend(const device& d, const parloop::settings& s)
      : parloop::detail::device_backend(s, d.is_gpu ? parloop::detail::gpu_defaults : parloop::detail::cpu_defaults),
        ctx_(d),
        memory_(ctx_),
        build_options_(s.fast_math ? "-cl-fast-relaxed-math" : ""),
        signature_(signature_of(d, build_options_)) {}

  std::string describe() const override { return "OpenCL " + ctx_.device().describe(); }

  // One element per work-item on a GPU; on a CPU a work-item runs through a slice of the
  // range, which keeps each core streaming through memory.
  strategy default_strategy() const override {
    if (ctx_.device().is_gpu) return split_n_across_workgroups{256};
    return chunked{16, 64};
  }
  // A reduction costs each work-group a tree, a fence and a ticket: on a GPU a grid sized to the
  // device spreads that over many elements (one element per work-item makes a large loop with a
  // SUM much slower on a GPU: docs/performance.md, OpenCL).
  strategy default_reduction_strategy() const override {
    if (ctx_.device().is_gpu) return grid_stride{256, 4};
    return chunked{16, 64};
  }
  // On a GPU as CUDA's; on a CPU, slices of 64 or 256 elements in groups of 16 or 64, and one
  // element per work-item.
  std::vector<strategy> tuning_strategies() const override {
    if (ctx_.device().is_gpu) return parloop::detail::gpu_tuning_strategies(default_strategy());
    return {chunked{16, 64}, chunked{16, 256}, chunked{64, 64}, split_n_across_workgroups{256}};
  }
  const codegen::dialect& dialect() const override {
    static const codegen::opencl_dialect opencl;
    return opencl;
  }
  const cache::device_signature& signature() const override { return signature_; }
  ir::device_facts facts() const override { return {ctx_.device().compute_units}; }

  // The launcher keeps the program of this build: loading it again from its binary would cost
  // a second compile, and a program loaded from a binary takes several times the memory.
  std::unique_ptr<parloop::detail::launcher> build(const codegen::kernel_source& source) override {
    check_device_can_run(source);
    return std::make_unique<launcher>(ctx_, build_program(ctx_, source.code, build_options_), source.code.entry,
                                      source.grid, source.block, source.layout);
  }

  std::unique_ptr<parloop::detail::launcher> load(const cache::kernel_record& record) override {
    if (record.backend != backend_kind::opencl || record.format != cache::binary_format::opencl_program) {
      throw error(parloop::detail::format("OpenCL: kernel record '{}' is not an OpenCL program", record.entry));
    }
    return std::make_unique<launcher>(ctx_, program_from_binary(ctx_, record.binary), record.entry, record.grid,
                                      record.block, record.layout);
  }

  // An implementation may finish a program at the first launch of its kernel (PoCL builds the
  // work-group function for the local size then); CL_PROGRAM_BINARIES read afterwards hold it.
  bool records_after_first_launch() const override { return true; }

  const context& opencl_context() const { return ctx_; }

 private:
  parloop::detail::device_memory& memory() override { return memory_; }

  // What the source needs and the device lacks is refused before the compiler sees it.
  void check_device_can_run(const codegen::kernel_source& source) const {
    const device& d = ctx_.device();
    const codegen::generated_source& code = source.code;
    if (code.needs.fp64 && !d.has_fp64()) {
      throw error(parloop::detail::format("kernel '{}' computes in double, and OpenCL device {} lacks cl_khr_fp64",
                                          code.kernel, d.name));
    }
    if (code.needs.int64_atomics && !d.has_int64_atomics()) {
      throw error(parloop::detail::format(
          "kernel '{}' needs 64-bit atomics, and OpenCL device {} lacks cl_khr_int64_base_atomics", code.kernel,
          d.name));
    }
    if (code.needs.int64_extended_atomics && !d.has_int64_extended_atomics()) {
      throw error(parloop::detail::format(
          "kernel '{}' needs 64-bit atomic min/max, and OpenCL device {} lacks cl_khr_int64_extended_atomics",
          code.kernel, d.name));
    }
    if (static_cast<std::size_t>(source.block) > d.max_work_group_size) {
      throw argument_error(parloop::detail::format("a block of {} work-items exceeds OpenCL device {}'s maximum of {}",
                                                   source.block, d.name, d.max_work_group_size));
    }
    // Each global reduction combines a block's partials in local memory.
    if (code.needs.group_memory > d.local_memory) {
      throw argument_error(
          parloop::detail::format("kernel '{}': its global reductions and staged increments (conflicts::blocks) "
                                  "need {} bytes of local memory for a block of {}, and OpenCL device {} has {}; "
                                  "use a smaller block, or conflicts::colors or atomics",
                                  code.kernel, code.needs.group_memory, source.block, d.name, d.local_memory));
    }
  }

  context ctx_;
  opencl::memory memory_;
  std::string build_options_;
  cache::device_signature signature_;
};

namespace detail {

// Where `s` names a device of this backend in particular and it is not there, choosing the best
// backend fails rather than quietly taking another.
inline backend_status status(const settings& s) {
  return parloop::detail::status_with(backend_kind::opencl, s.device_named_for(backend_kind::opencl),
                                      [&] { return !chosen_device(s).is_gpu; });
}

inline std::string open(parloop::detail::runtime_state& state) {
  return parloop::detail::open_with(
      state, [&] { return std::make_shared<backend>(chosen_device(state.settings), state.settings); });
}

}  // namespace detail
}  // namespace parloop::backend::opencl

PARLOOP_COLD_END
