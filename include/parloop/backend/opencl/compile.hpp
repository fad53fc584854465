// SPDX-License-Identifier: MIT
// Compiling OpenCL C with clBuildProgram, a program's binary, and a program from a binary.
#pragma once

#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/opencl/cl.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/error.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::opencl {

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
inline program_handle build_program(const context& ctx, const codegen::generated_source& source,
                                    const std::string& options = "") {
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
  return program;
}

// The program's binary for its one device (CL_PROGRAM_BINARIES).
inline std::vector<unsigned char> program_binary(const program_handle& program) {
  std::size_t size = 0;
  check(clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  check(clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof data, &data, nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  return binary;
}

// A program from a binary that program_binary gave for a device of the same signature.
inline program_handle program_from_binary(const context& ctx, const std::vector<unsigned char>& binary) {
  cl_int status = CL_SUCCESS;
  cl_int binary_status = CL_SUCCESS;
  cl_device_id device = ctx.device().id;
  const unsigned char* data = binary.data();
  const std::size_t size = binary.size();
  program_handle program(clCreateProgramWithBinary(ctx.get(), 1, &device, &size, &data, &binary_status, &status));
  check(status, "clCreateProgramWithBinary");
  check(binary_status, "clCreateProgramWithBinary (binary status)");
  check(clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr), "clBuildProgram (from binary)");
  return program;
}

}  // namespace parloop::backend::opencl

PARLOOP_COLD_END
