// SPDX-License-Identifier: MIT
// Where an OP2 kernel's C source is: by OP2's convention, kernel `k` is defined in `k.h`, beside
// the application's source file that calls op_par_loop. It is looked for in the folders
// PARLOOP_OP2_KERNELS names, then beside that file -- in the files embedded at build time
// (parloop_embed_sources), then on disk -- and read with everything it includes; without a
// header, in the application's own source files, as OP2's translators look too; the constants it
// names are declared before it, and the application's user_types.h, where it has one, as OP2's
// translators put it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parloop/core/backend_kind.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/source_files.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/constant_values.hpp"
#include "parloop/op2/declare.hpp"
#include "parloop/op2/program.hpp"

namespace parloop::op2 {

// The folders kernel headers are looked for in, in order: `named` (settings::op2_kernels), then
// the calling file's.
inline std::vector<std::filesystem::path> kernel_folders(const std::vector<std::filesystem::path>& named,
                                                         const char* call_file) {
  std::vector<std::filesystem::path> folders = named;
  if (call_file != nullptr) {
    const std::filesystem::path beside = std::filesystem::path(call_file).parent_path();
    folders.push_back(beside.empty() ? std::filesystem::path(".") : beside);
  }
  return folders;
}

// The application's source files a kernel without a header may be defined in: the file that calls
// op_par_loop, then the other C and C++ files built into the program (parloop_embed_sources).
inline std::vector<std::filesystem::path> application_sources(const char* call_file) {
  std::vector<std::filesystem::path> files;
  if (call_file != nullptr) files.emplace_back(call_file);
  for (std::filesystem::path& f : detail::embedded_sources(call_file)) files.push_back(std::move(f));
  return files;
}

// Kernel `kernel`'s C source, found as OP2's translators find it: its header k.h, its #include lines
// resolved beside it and in the same folders; else its definition in the application's own
// source, with the functions it calls and the macros it names from the same file.
inline std::string kernel_source(const std::string& kernel, const std::vector<std::filesystem::path>& named,
                                 const char* call_file) {
  const std::vector<std::filesystem::path> folders = kernel_folders(named, call_file);
  std::string searched;
  for (const std::filesystem::path& f : folders) {
    if (std::optional<std::string> text = detail::header_source(kernel, f / (kernel + ".h"), include_path(folders))) {
      return *std::move(text);
    }
    searched += parloop::detail::format(" '{}'", f.string());
  }
  std::string sources;
  for (const std::filesystem::path& file : application_sources(call_file)) {
    if (std::optional<std::string> found = detail::definition_source(kernel, file)) return *std::move(found);
    sources += parloop::detail::format(" '{}'", file.string());
  }
  throw argument_error(parloop::detail::format(
      "op_par_loop: the C source of kernel '{}' is needed to run it on a device; {}.h is in none of the folders "
      "searched:{}, and none of the application's sources defines it:{} (OP2's convention: kernel k is defined in k.h "
      "beside the source that calls op_par_loop, or in that source; PARLOOP_OP2_KERNELS names other folders, and "
      "CMake's parloop_embed_sources embeds headers and sources in the program)",
      kernel, kernel, searched, sources.empty() ? " none known" : sources));
}

// The application's user_types.h, where the kernel folders have one, its includes resolved: OP2's
// translators put it in front of every kernel they generate, for the helper functions and types
// kernels share.
inline std::string user_types_source(const std::vector<std::filesystem::path>& named, const char* call_file) {
  const std::vector<std::filesystem::path> folders = kernel_folders(named, call_file);
  for (const std::filesystem::path& f : folders) {
    if (std::optional<std::string> text =
            detail::header_source("user_types", f / "user_types.h", include_path(folders))) {
      return *std::move(text);
    }
  }
  return std::string();
}

// OP_FUN_PREFIX as OP2's translators define it before user_types.h: a CUDA function of both sides;
// nothing in OpenCL C.
inline constexpr std::string_view fun_prefix =
    "#ifndef OP_FUN_PREFIX\n#ifdef __CUDACC__\n"
    "#define OP_FUN_PREFIX __host__ __device__\n#else\n"
    "#define OP_FUN_PREFIX\n#endif\n#endif\n";

// The source a device compiles for the kernel: its header, with the declarations of the constants
// it names before it. Made again when the constants change; a source that changed starts a new
// cache of compiled code. The host calls the kernel function and needs no header; where it has
// one, its IR holds the source too (what a device would compile: the test suite compiles it).
inline kernel_record& record_for(program& p, const char* kernel_name, const char* file) {
  kernel_record*& site = p.sites[{file, kernel_name}];
  if (site == nullptr) {
    site = &p.kernels[parloop::detail::format("{}:{}", file != nullptr ? file : "", kernel_name)];
    site->name = kernel_name;
  }
  kernel_record& r = *site;
  const std::string& kernel = r.name;
  const bool device = !runs_lambdas(p.runtime.kind());
  if (!r.header) {
    try {
      const std::vector<std::filesystem::path>& named = p.runtime.settings().op2_kernels;
      r.header = kernel_source(kernel, named, file);
      r.user_types = user_types_source(named, file);
      detail::check_source_kernel_name(kernel);
    } catch (const argument_error&) {
      if (device) throw;
      r.header = std::string();
    }
  }
  if (!r.cache || r.constants_version != p.constants_version) {
    std::string source;
    if (!r.header->empty()) {
      // OP2's kernels may use its MIN, MAX and OP2_STRIDE, which its own device code defines too.
      source =
          "#ifndef MIN\n#define MIN(a, b) ((a < b) ? (a) : (b))\n#endif\n"
          "#ifndef MAX\n#define MAX(a, b) ((a > b) ? (a) : (b))\n#endif\n"
          "#ifndef OP2_STRIDE\n#define OP2_STRIDE(arr, idx) arr[idx]\n#endif\n";
      for (const constant& c : p.constants) {
        if (detail::names_word(*r.header, c.name) || detail::names_word(r.user_types, c.name)) {
          source += declaration_of(c);
        }
      }
      if (!r.user_types.empty()) {
        source += fun_prefix;
        source += r.user_types;
      }
      source += *r.header;
    }
    if (!r.cache || source != r.source) {
      r.source = std::move(source);
      r.cache = std::make_unique<detail::kernel_cache>(kernel);
    }
    r.constants_version = p.constants_version;
  }
  return r;
}

}  // namespace parloop::op2
