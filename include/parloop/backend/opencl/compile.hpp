// SPDX-License-Identifier: MIT
// Compiling generated OpenCL C with clBuildProgram into a program binary.
#pragma once

#include <string>
#include <vector>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/error.hpp"

namespace parloop::backend::opencl {

// What a build produces: the binary (CL_PROGRAM_BINARIES) and the entry point in it.
struct compiled {
  std::vector<unsigned char> binary;
  std::string entry;
};

inline std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Builds the source for the context's device; a refused source throws compile_error with
// the build log and the numbered source.
inline compiled build(const context& ctx, const codegen::generated_source& source, const std::string& options = "") {
  cl_int status = CL_SUCCESS;
  const char* text = source.text.c_str();
  const std::size_t length = source.text.size();
  program_handle program(clCreateProgramWithSource(ctx.get(), 1, &text, &length, &status));
  check(status, "clCreateProgramWithSource");
  cl_device_id device = ctx.device().id;
  status = clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = build_log(program.get(), device);
    throw compile_error(codegen::compile_failure(source, "clBuildProgram on " + ctx.device().name, log), log,
                        source.path);
  }
  std::size_t size = 0;
  check(clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
  compiled out{std::vector<unsigned char>(size), source.entry};
  unsigned char* data = out.binary.data();
  check(clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof data, &data, nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  return out;
}

// A program and its entry point, ready to launch, from a binary build() made (or the disk
// cache kept) for this context's device.
struct loaded {
  program_handle program;
  kernel_handle kernel;
};

inline loaded load(const context& ctx, const compiled& c) {
  cl_int status = CL_SUCCESS;
  cl_int binary_status = CL_SUCCESS;
  cl_device_id device = ctx.device().id;
  const unsigned char* data = c.binary.data();
  const std::size_t size = c.binary.size();
  loaded out;
  out.program = program_handle(clCreateProgramWithBinary(ctx.get(), 1, &device, &size, &data, &binary_status, &status));
  check(status, "clCreateProgramWithBinary");
  check(binary_status, "clCreateProgramWithBinary (binary status)");
  check(clBuildProgram(out.program.get(), 1, &device, "", nullptr, nullptr), "clBuildProgram (from binary)");
  out.kernel = kernel_handle(clCreateKernel(out.program.get(), c.entry.c_str(), &status));
  check(status, "clCreateKernel");
  return out;
}

}  // namespace parloop::backend::opencl
