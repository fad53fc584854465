// SPDX-License-Identifier: MIT
// From IR to device source: the entry point of code generation.
#pragma once

#include <string>
#include <string_view>

#include "parloop/config.hpp"
#include "parloop/codegen/cuda.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/codegen/emit.hpp"
#include "parloop/codegen/opencl.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

struct generated_source {
  dialect_kind dialect;
  std::string kernel;  // the kernel's name
  std::string entry;   // the entry point's name in the source
  std::string text;
  std::string path;  // where PARLOOP_DUMP_SOURCE wrote it (exec/kernel/dump_source.hpp); empty if not
  features needs;    // what it needs of the device: double precision, 64-bit atomics
};

// The dialect objects of both kinds, for tests and tools that name a kind: a backend hands the
// pipeline its own (device_backend::dialect), so that a program compiles the dialects of the
// backends it includes only.
inline const dialect& dialect_of(dialect_kind kind) {
  static const opencl_dialect opencl;
  static const cuda_dialect cuda;
  return kind == dialect_kind::opencl ? static_cast<const dialect&>(opencl) : static_cast<const dialect&>(cuda);
}

// The kernel as source in one dialect, for one launch strategy.
inline generated_source generate(const ir::kernel& k, const dialect& d, const strategy& s = split_n_across_workgroups{},
                                 const ir::source_options& o = {}) {
  emitter e(k, d, s, o);
  generated_source out{d.kind(), k.name, entry_name(k), e.emit(), {}, {}};
  out.needs = e.needs();
  return out;
}
inline generated_source generate(const ir::kernel& k, dialect_kind kind,
                                 const strategy& s = split_n_across_workgroups{}, const ir::source_options& o = {}) {
  return generate(k, dialect_of(kind), s, o);
}

// The message of a compile_error: what failed, the compiler's log, the numbered source.
inline std::string compile_failure(const generated_source& s, std::string_view compiler, std::string_view log) {
  // OP2 codes declare constants at file scope, which OpenCL C refuses unless they are __constant.
  const bool file_scope_constant = log.find("program scope variable") != std::string_view::npos;
  return parloop::detail::format(
      "kernel '{}' failed to compile with {}{}{}\n--- compiler log ---\n{}\n--- source ({}) ---\n{}", s.kernel,
      compiler, s.path.empty() ? std::string() : " (source: " + s.path + ")",
      file_scope_constant ? "\nA file-scope constant in a kernel from source is declared "
                            "`PL_CONSTANT double k = 2.0;`, which every backend accepts."
                          : "",
      log, name_of(s.dialect), with_line_numbers(s.text));
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
