// SPDX-License-Identifier: MIT
// From IR to device source: the entry point of code generation, and PARLOOP_DUMP_SOURCE.
#pragma once

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include "parloop/codegen/cuda.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/codegen/emit.hpp"
#include "parloop/codegen/opencl.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/error.hpp"
#include "parloop/ir/hash.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::codegen {

struct generated_source {
  dialect_kind dialect;
  std::string kernel;  // the kernel's name
  std::string entry;   // the entry point's name in the source
  std::string text;
  std::string path;  // where PARLOOP_DUMP_SOURCE wrote it; empty if not set
  features needs;    // what it needs of the device: double precision, 64-bit atomics
};

inline const dialect& dialect_of(dialect_kind kind) {
  static const opencl_dialect opencl;
  static const cuda_dialect cuda;
  return kind == dialect_kind::opencl ? static_cast<const dialect&>(opencl) : static_cast<const dialect&>(cuda);
}

namespace detail {

// Writes next to the final name, then renames: a reader never sees half a file.
inline std::string dump_source(const std::filesystem::path& dir, const std::string& file, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path target = dir / file;
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path temporary =
      dir / fmt::format("{}.tmp.{}.{}", file, static_cast<long>(::getpid()), counter.fetch_add(1));
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, ec);
      throw error(fmt::format("PARLOOP_DUMP_SOURCE: cannot write '{}'", target.string()));
    }
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw error(fmt::format("PARLOOP_DUMP_SOURCE: cannot write '{}'", target.string()));
  }
  return target.string();
}

}  // namespace detail

// The kernel as source in one dialect, for one launch strategy. With
// PARLOOP_DUMP_SOURCE=<dir>, the source is also written there as <kernel name>-<hash of the text>.<cl|cu>.
inline generated_source generate(const ir::kernel& k, dialect_kind kind, const strategy& s = split_n_across_workgroups{},
                                 const options& o = {}) {
  const dialect& d = dialect_of(kind);
  emitter e(k, d, s, o);
  generated_source out{kind, k.name, entry_name(k), e.emit(), {}, {}};
  out.needs = e.needs();
  if (const char* dir = parloop::detail::environment_value("PARLOOP_DUMP_SOURCE")) {
    const std::string file = fmt::format("{}-{:016x}.{}", out.kernel, XXH3_64bits(out.text.data(), out.text.size()),
                                         d.extension());
    // Dumping is an aid, not the loop's work: a folder that cannot be written is said once, and
    // the loops run.
    try {
      out.path = detail::dump_source(dir, file, out.text);
    } catch (const error& e) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, fmt::format("{}; generated sources are not dumped", e.what()));
    }
  }
  return out;
}

// The message of a compile_error: what failed, the compiler's log, the numbered source.
inline std::string compile_failure(const generated_source& s, std::string_view compiler, std::string_view log) {
  // OP2 codes declare constants at file scope, which OpenCL C refuses unless they are __constant.
  const bool file_scope_constant = log.find("program scope variable") != std::string_view::npos;
  return fmt::format("kernel '{}' failed to compile with {}{}{}\n--- compiler log ---\n{}\n--- source ({}) ---\n{}",
                     s.kernel, compiler, s.path.empty() ? std::string() : " (source: " + s.path + ")",
                     file_scope_constant ? "\nA file-scope constant in a kernel from source is declared "
                                           "`PL_CONSTANT double k = 2.0;`, which every backend accepts."
                                         : "",
                     log, dialect_of(s.dialect).name(), with_line_numbers(s.text));
}

}  // namespace parloop::codegen
