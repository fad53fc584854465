// SPDX-License-Identifier: MIT
// A C kernel's source read from files, for front ends that keep kernels in headers or in the
// application's own sources (OP2's k.h, or the kernel's definition in the file that calls
// op_par_loop). Files embedded into the program when it was built (CMake's
// parloop_embed_sources) are read in place of the disk's. Whether a source says a name
// (detail::names_word) comes with them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/dsl/source_functions.hpp"
#include "parloop/dsl/source_includes.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The text of header `file` with its #include lines resolved, beside it and then in `path`; none
// where there is no such file. `kernel`, the kernel it defines, names it in messages.
inline std::optional<std::string> header_source(const std::string& kernel, const std::filesystem::path& file,
                                                const include_path& path) {
  const std::optional<std::string> text = source_file_text(file);
  if (!text) return std::nullopt;
  return resolve_file_includes(kernel, file, *text, path);
}

// Function `kernel`'s definition in the C or C++ source `file`, after the functions it calls and
// the macros it names from that file; none where the file is missing or does not define it.
inline std::optional<std::string> definition_source(const std::string& kernel, const std::filesystem::path& file) {
  const std::optional<std::string> text = source_file_text(file);
  if (!text) return std::nullopt;
  check_no_nul(kernel, *text, parloop::detail::format("'{}'", file.string()));
  const std::optional<std::string> found = function_with_needs(*text, kernel);
  if (!found) return std::nullopt;
  return parloop::detail::format("// kernel '{}' as defined in {}\n{}", kernel, file.string(), *found);
}

// The C and C++ sources embedded into the program, but `except` (where not null).
inline std::vector<std::filesystem::path> embedded_sources(const char* except) {
  std::vector<std::filesystem::path> files;
  for (const auto& [path, text] : embedded_files()) {
    const std::string ext = std::filesystem::path(path).extension().string();
    if ((ext == ".c" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C") &&
        (except == nullptr || embedded_key(except) != path)) {
      files.emplace_back(path);
    }
  }
  return files;
}

}  // namespace parloop::detail

PARLOOP_COLD_END
