// SPDX-License-Identifier: MIT
// Compiling generated CUDA with NVRTC: a CUBIN for the device's exact architecture, or, where
// this NVRTC does not know that architecture, PTX for the newest one it knows below it, which
// the driver compiles when loading it.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/cuda/nvrtc.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::cuda {

// What NVRTC compiles for, and how.
struct target {
  int arch = 90;           // 10 * major + minor: 90 is sm_90
  bool ptx = false;        // PTX for the driver to finish, not machine code
  bool fast_math = false;  // --use_fast_math: approximate division, square root and transcendentals
  // NVRTC's front end only (-fdevice-syntax-only): the source is checked and nothing is built, for
  // checking many kernels' source where neither optimising nor assembling them is the question.
  bool check_only = false;

  // Every NVRTC option: functions without an execution space are device functions, so the C
  // function of a kernel from source needs no CUDA annotation.
  std::vector<std::string> options() const {
    std::vector<std::string> out = {parloop::detail::format("--gpu-architecture={}_{}", ptx ? "compute" : "sm", arch),
                                    "--device-as-default-execution-space", "--std=c++17"};
    if (fast_math) out.push_back("--use_fast_math");
    if (check_only) out.push_back("-fdevice-syntax-only");
    return out;
  }
  std::string options_text() const {
    std::string out;
    for (const std::string& o : options()) out += (out.empty() ? "" : " ") + o;
    return out;
  }
  cache::binary_format format() const { return ptx ? cache::binary_format::ptx : cache::binary_format::cubin; }
};

// The target for a device of architecture `device_arch` (10 * major + minor), given the
// architectures an NVRTC knows (`supported`, ascending). Throws backend_unavailable when the
// device is older than every one of them.
inline target target_for(int device_arch, const std::vector<int>& supported, bool fast_math) {
  if (std::find(supported.begin(), supported.end(), device_arch) != supported.end())
    return {device_arch, false, fast_math};
  int newest_below = 0;
  for (const int a : supported) {
    if (a <= device_arch) newest_below = std::max(newest_below, a);
  }
  if (newest_below == 0) {
    throw backend_unavailable(
        parloop::detail::format("CUDA: NVRTC does not compile for sm_{} (the oldest architecture it knows is "
                                "sm_{})",
                                device_arch, supported.empty() ? 0 : supported.front()));
  }
  return {newest_below, true, fast_math};
}

// What a build produces: the binary and the entry point in it.
struct compiled {
  std::vector<unsigned char> binary;
  cache::binary_format format;
  std::string entry;
};

// Compiles `source` for `t` (checks it, where t.check_only: the binary is then empty); a refused
// source throws compile_error with NVRTC's log, the numbered source and the dump path.
inline compiled build(const codegen::generated_source& source, const target& t) {
  const nvrtc& api = nvrtc::get();
  nvrtcProgram program = nullptr;
  const std::string file = source.entry + ".cu";
  nvrtcResult status = api.create_program(&program, source.text.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS)
    throw error(parloop::detail::format("NVRTC: nvrtcCreateProgram failed: {}", api.get_error_string(status)));
  const auto destroy = [&api](nvrtcProgram* p) { api.destroy_program(p); };
  const std::unique_ptr<nvrtcProgram, decltype(destroy)> owner(&program, destroy);

  std::vector<std::string> options = t.options();
  // A kernel's #include <cuda_fp16.h> (under #ifdef __CUDACC__) is read from the toolkit, as nvcc would.
  if (!api.toolkit_include().empty()) options.push_back("--include-path=" + api.toolkit_include());
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  status = api.compile_program(program, static_cast<int>(pointers.size()), pointers.data());
  if (status != NVRTC_SUCCESS) {
    std::size_t size = 0;
    api.get_program_log_size(program, &size);
    std::string log(size, '\0');
    if (size > 0) api.get_program_log(program, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    throw compile_error(codegen::compile_failure(source, "NVRTC (" + t.options_text() + ")", log), log, source.path);
  }
  std::size_t size = 0;
  compiled out{{}, t.format(), source.entry};
  if (t.check_only) return out;
  if (t.ptx) {
    api.get_ptx_size(program, &size);
    out.binary.resize(size);
    api.get_ptx(program, reinterpret_cast<char*>(out.binary.data()));
  } else {
    api.get_cubin_size(program, &size);
    out.binary.resize(size);
    api.get_cubin(program, reinterpret_cast<char*>(out.binary.data()));
  }
  return out;
}

}  // namespace parloop::backend::cuda

PARLOOP_COLD_END
