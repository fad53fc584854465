// SPDX-License-Identifier: MIT
// NVRTC, loaded at run time: a program built with the CUDA backend starts, and reports the
// backend unavailable, on a machine without the CUDA toolkit's runtime compiler.
#pragma once

#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <vector>
#include <string>

#include "parloop/backend/cuda/library.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::backend::cuda {

// A CUDA version number (13000, as the driver and NVRTC give them) as text: "13.0".
inline std::string version_text(int v) { return parloop::detail::format("{}.{}", v / 1000, v % 1000 / 10); }

class nvrtc {
 public:
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) get_program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) get_program_log = nullptr;
  decltype(&::nvrtcGetCUBINSize) get_cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) get_cubin = nullptr;
  decltype(&::nvrtcGetPTXSize) get_ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) get_ptx = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) get_num_supported_archs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) get_supported_archs = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcGetErrorString) get_error_string = nullptr;
  decltype(&::nvrtcVersion) version = nullptr;

  // The library, loaded on first use; throws backend_unavailable, with the reason, if it cannot be.
  static const nvrtc& get() {
    static const nvrtc instance;
    if (!instance.library_.reason().empty()) throw backend_unavailable("CUDA: " + instance.library_.reason());
    return instance;
  }

  // The architectures this NVRTC compiles for, as 10 * major + minor (90 is sm_90), ascending.
  std::vector<int> supported_archs() const {
    int count = 0;
    get_num_supported_archs(&count);
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (count > 0) get_supported_archs(archs.data());
    return archs;
  }

  // The version as major * 1000 + minor * 10 (13.0 -> 13000), part of what identifies a compiler.
  int version_number() const {
    int major = 0, minor = 0;
    version(&major, &minor);
    return major * 1000 + minor * 10;
  }
  // The CUDA toolkit's include folder, where this NVRTC's toolkit has one: NVRTC itself has no
  // header search path, and nvcc reads <cuda_fp16.h> and the like from there. Empty where none is
  // found. Not part of a cache entry's signature: the headers follow from NVRTC's version.
  const std::string& toolkit_include() const { return toolkit_include_; }

  // "NVRTC 13.0": the compiler as a disk cache entry's signature names it.
  std::string name() const { return "NVRTC " + version_text(version_number()); }

 private:
  nvrtc()
      : library_(candidates(),
                 "NVRTC (libnvrtc.so) was not found; install the CUDA toolkit or put its lib "
                 "directory on LD_LIBRARY_PATH") {
    library_.load(create_program, "nvrtcCreateProgram");
    library_.load(compile_program, "nvrtcCompileProgram");
    library_.load(get_program_log_size, "nvrtcGetProgramLogSize");
    library_.load(get_program_log, "nvrtcGetProgramLog");
    library_.load(get_cubin_size, "nvrtcGetCUBINSize");
    library_.load(get_cubin, "nvrtcGetCUBIN");
    library_.load(get_ptx_size, "nvrtcGetPTXSize");
    library_.load(get_ptx, "nvrtcGetPTX");
    library_.load(get_num_supported_archs, "nvrtcGetNumSupportedArchs");
    library_.load(get_supported_archs, "nvrtcGetSupportedArchs");
    library_.load(destroy_program, "nvrtcDestroyProgram");
    library_.load(get_error_string, "nvrtcGetErrorString");
    library_.load(version, "nvrtcVersion");
    toolkit_include_ = find_toolkit_include(shared_library::file_of(reinterpret_cast<const void*>(create_program)));
  }

  // Beside the library (lib64/../include, targets/<arch>/lib/../include), else under CUDA_HOME.
  static std::string find_toolkit_include(const std::filesystem::path& library) {
    const char* env = parloop::detail::environment_value("CUDA_HOME");
    std::vector<std::filesystem::path> folders;
    if (!library.empty()) folders.push_back(library.parent_path().parent_path() / "include");
    folders.push_back(std::filesystem::path(env != nullptr ? env : "/usr/local/cuda") / "include");
    for (const std::filesystem::path& f : folders) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(f / "cuda_fp16.h", ec)) return f.string();
    }
    return std::string();
  }

  static std::vector<std::string> candidates() {
    const char* env = parloop::detail::environment_value("CUDA_HOME");
    const std::string home = env != nullptr ? env : "/usr/local/cuda";
    return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", home + "/lib64/libnvrtc.so", home + "/lib/libnvrtc.so"};
  }

  shared_library library_;
  std::string toolkit_include_;
};

}  // namespace parloop::backend::cuda
