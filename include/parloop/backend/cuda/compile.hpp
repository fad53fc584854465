// SPDX-License-Identifier: MIT
// Compiling generated CUDA with NVRTC into a CUBIN for one GPU architecture.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parloop/backend/cuda/nvrtc.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/error.hpp"

namespace parloop::backend::cuda {

// What a build produces: the binary (a CUBIN) and the entry point in it.
struct compiled {
  std::vector<unsigned char> binary;
  std::string entry;
};

// Compiles for `arch` (e.g. "sm_90"); a refused source throws compile_error with NVRTC's
// log and the numbered source. Functions without an execution space are device functions,
// so the elemental C function of a kernel from source needs no CUDA annotation.
inline compiled build(const codegen::generated_source& source, const std::string& arch) {
  const nvrtc& api = nvrtc::get();
  nvrtcProgram program = nullptr;
  const std::string file = source.entry + ".cu";
  nvrtcResult status = api.create_program(&program, source.text.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) throw error(fmt::format("NVRTC: nvrtcCreateProgram failed: {}", api.get_error_string(status)));
  const auto destroy = [&api](nvrtcProgram* p) { api.destroy_program(p); };
  const std::unique_ptr<nvrtcProgram, decltype(destroy)> owner(&program, destroy);

  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "--device-as-default-execution-space", "--std=c++17"};
  status = api.compile_program(program, static_cast<int>(std::size(options)), options);
  if (status != NVRTC_SUCCESS) {
    std::size_t size = 0;
    api.get_program_log_size(program, &size);
    std::string log(size, '\0');
    if (size > 0) api.get_program_log(program, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    throw compile_error(codegen::compile_failure(source, "NVRTC for " + arch, log), log, source.path);
  }
  std::size_t size = 0;
  api.get_cubin_size(program, &size);
  compiled out{std::vector<unsigned char>(size), source.entry};
  api.get_cubin(program, reinterpret_cast<char*>(out.binary.data()));
  return out;
}

}  // namespace parloop::backend::cuda
