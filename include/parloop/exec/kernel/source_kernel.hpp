// SPDX-License-Identifier: MIT
// pl::kernel_from_source: a kernel written as an elemental C function, for porting OP2 and
// PyOP2 codes. It gets the same wrapper, gathers and scatters as a traced kernel.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "parloop/config.hpp"
#include "parloop/dsl/source_array_parameters.hpp"
#include "parloop/dsl/source_includes.hpp"
#include "parloop/dsl/source_std_calls.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop {

// How a C kernel function declares a parameter where its C++ declaration is known (OP2's
// kernels, which C++ also compiles): a pointer to its scalar type, const or not, or a pointer to
// one such pointer per map slot.
using source_param = ir::raw_param;

namespace detail {

// The IR of C source `source` defining `name`, called with `params`, each declared as `declared`
// says where it is given. A kernel without source (OP2's on the host, which calls the function
// itself) gets an empty body, never compiled. The source is made device C here, once: its array
// parameters as pointers, std:: math as C's (what a program that has no such kernel does not
// compile).
inline ir::kernel source_kernel_ir(const std::string& name, const std::string& source,
                                   std::span<const ir::param> params, std::span<const source_param> declared = {}) {
  ir::kernel k;
  k.name = name;
  k.params.assign(params.begin(), params.end());
  if (source.empty()) {
    k.blocks.emplace_back();
  } else {
    k.raw_source = without_std_math(with_pointer_parameters(source));
    k.raw_params.assign(declared.begin(), declared.end());
  }
  return k;
}

struct source_kernel_state {
  source_kernel_state(std::string kernel_name, std::string kernel_source)
      : name(std::move(kernel_name)), source(std::move(kernel_source)), cache(name) {}
  std::string name;
  std::string source;
  kernel_cache cache;
};
}  // namespace detail

// `source` defines `void name(T0* a0, T1* a1, ...)`, one pointer per par_loop argument in
// order (const for READ): a dat's Dim components, a whole-map argument's arity * Dim values
// slot by slot, a global's Dim values. Its #include lines are replaced by the files they name,
// found in `headers` (dsl/source_includes.hpp) and read now. It runs on device backends only.
class SourceKernel : public detail::kernel_handle<detail::source_kernel_state, detail::source_kernel_handle_name> {
 public:
  SourceKernel(std::string name, const std::string& source, const include_path& headers = {}) {
    detail::check_source_kernel_name(name);
    if (source.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw argument_error("kernel_from_source '" + name + "': the source is empty");
    }
    std::string resolved = detail::resolve_includes(name, source, headers);
    state_ = std::make_shared<detail::source_kernel_state>(std::move(name), std::move(resolved));
  }

  const std::string& source() const { return state().source; }

  template <class... Args>
  std::shared_ptr<const ir::kernel> ir(const Args&... args) const {
    return entry(args...).ir;
  }

  template <class... Args>
  detail::signature_entry& entry(const Args&... args) const {
    return entry_with([&](std::span<const ir::param> p) { return ir_for(p); }, args...);
  }
  // Its IR for these parameters: the source, to be called with them.
  ir::kernel ir_for(std::span<const ir::param> params) const {
    return detail::source_kernel_ir(name(), source(), params);
  }
  [[noreturn]] void refuse_host() const {
    throw backend_unavailable("kernel '" + name() +
                              "' is C source: it needs a device backend (PARLOOP_BACKEND=opencl or cuda); the host "
                              "and threads backends run pl::kernel lambdas");
  }
};

inline SourceKernel kernel_from_source(std::string name, const std::string& c_source,
                                       const include_path& headers = {}) {
  return SourceKernel(std::move(name), c_source, headers);
}

}  // namespace parloop

PARLOOP_COLD_END
