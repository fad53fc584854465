// SPDX-License-Identifier: MIT
// Launching on OpenCL: a kernel of a built program, its arguments set, enqueued on the queue.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/compile.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/backend/opencl/memory.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/format.hpp"

namespace parloop::backend::opencl {

class launcher final : public parloop::detail::launcher {
 public:
  // Keeps the program: the kernel needs it, and OpenCL keeps the context alive for both.
  launcher(const context& ctx, program_handle program, std::string entry, ir::grid_size_functor grid, int block,
           std::vector<ir::kernel_buffer> layout)
      : parloop::detail::launcher(std::move(grid), block, std::move(layout)),
        queue_(ctx.queue()),
        program_(std::move(program)),
        entry_(std::move(entry)) {
    cl_int status = CL_SUCCESS;
    kernel_ = kernel_handle(clCreateKernel(program_.get(), entry_.c_str(), &status));
    check(status, "clCreateKernel");
    // A kernel may run with fewer work-items per group than the device allows (registers).
    std::size_t most = 0;
    check(clGetKernelWorkGroupInfo(kernel_.get(), ctx.device().id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                   nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    if (static_cast<std::size_t>(this->block()) > most) {
      throw argument_error(
          parloop::detail::format("kernel '{}': a block of {} work-items exceeds the {} OpenCL device {} runs it with",
                                  entry_, this->block(), most, ctx.device().name));
    }
  }

  // A cl_kernel's arguments are state of the kernel object: set and enqueued by the one thread
  // that uses this runtime.
  void enqueue(index_t start, index_t end, std::int64_t groups,
               std::span<const parloop::detail::device_buffer* const> buffers, std::span<const int> strides) override {
    cl_uint index = 0;
    const cl_int s = start, e = end;
    check(clSetKernelArg(kernel_.get(), index++, sizeof s, &s), "clSetKernelArg(start)");
    check(clSetKernelArg(kernel_.get(), index++, sizeof e, &e), "clSetKernelArg(end)");
    for (const parloop::detail::device_buffer* b : buffers) {
      const cl_mem m = static_cast<const buffer*>(b)->get();
      check(clSetKernelArg(kernel_.get(), index++, sizeof m, &m), "clSetKernelArg(buffer)");
    }
    for (const int stride : strides) {
      const cl_int v = stride;
      check(clSetKernelArg(kernel_.get(), index++, sizeof v, &v), "clSetKernelArg(stride)");
    }
    const std::size_t local = static_cast<std::size_t>(block());
    const std::size_t global = static_cast<std::size_t>(groups) * local;
    check(clEnqueueNDRangeKernel(queue_, kernel_.get(), 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }

  cache::kernel_record record() const override {
    return {backend_kind::opencl,
            cache::binary_format::opencl_program,
            entry_,
            program_binary(program_),
            grid(),
            block(),
            std::vector<ir::kernel_buffer>(layout().begin(), layout().end())};
  }

 private:
  cl_command_queue queue_;
  program_handle program_;
  std::string entry_;
  kernel_handle kernel_;
};

}  // namespace parloop::backend::opencl
