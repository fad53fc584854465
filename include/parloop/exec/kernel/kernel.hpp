// SPDX-License-Identifier: MIT
// pl::kernel: a named kernel lambda and what has been traced from it.
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "parloop/core/handle.hpp"
#include "parloop/dsl/trace.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/format.hpp"
#include "parloop/identifier.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop {

namespace detail {

// The longest kernel name: it names the entry point, pl_kernel_<name>, and the file a source is
// dumped to, <name>-<hash>.cl; PoCL aborts on an entry point of about 250 characters.
inline constexpr std::size_t max_kernel_name = 128;

// A traced kernel's name only names its entry point, pl_kernel_<name>: any C identifier of up to
// max_kernel_name characters will do.
inline void check_kernel_name(const std::string& name) {
  if (!parloop::detail::is_identifier(name)) {
    throw argument_error("kernel name '" + name +
                         "' is not a C identifier: use letters, digits and _, not starting with a digit");
  }
  if (name.size() > max_kernel_name) {
    throw argument_error(parloop::detail::format("kernel name '{}...' has {} characters: at most {} are allowed",
                                                 name.substr(0, 32), name.size(), max_kernel_name));
  }
}

// Whether s is `prefix` followed by a digit: the names of the entry point's own variables
// (arg0, data1, map0).
inline bool is_generated_name(std::string_view s, std::string_view prefix) {
  return s.size() > prefix.size() && s.starts_with(prefix) &&
         std::isdigit(static_cast<unsigned char>(s[prefix.size()]));
}

// A source kernel's name is also its C function's, which the entry point calls. The generated
// source renames it by a macro around the user's source (codegen's raw_function_name), so that
// a name the device language takes -- a keyword (kernel, half), a built-in (barrier) or a macro
// (M_PI, NULL) of OpenCL C or CUDA -- works on every backend. What a macro cannot rename is
// refused: C's keywords, names C reserves, the preprocessor's `defined`, the entry point's own
// names, and the dialects' macros the entry point uses after the source.
inline void check_source_kernel_name(const std::string& name) {
  check_kernel_name(name);
  if (name.starts_with("pl_") || is_generated_name(name, "arg") || is_generated_name(name, "data") ||
      is_generated_name(name, "map")) {
    throw argument_error("kernel_from_source name '" + name +
                         "' is a name of the generated entry point (pl_..., arg<N>, data<N>, map<N>): "
                         "name the C function otherwise");
  }
  static constexpr std::string_view c_keywords[] = {
      "auto",   "break",    "case",     "char",     "const", "continue", "default", "do",     "double",
      "else",   "enum",     "extern",   "float",    "for",   "goto",     "if",      "inline", "int",
      "long",   "register", "restrict", "return",   "short", "signed",   "sizeof",  "static", "struct",
      "switch", "typedef",  "union",    "unsigned", "void",  "volatile", "while",   "defined"};
  for (const std::string_view word : c_keywords) {
    if (name == word)
      throw argument_error("kernel_from_source name '" + name + "' is a word of C: name the function otherwise");
  }
  if (name.starts_with("__") ||
      (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])))) {
    throw argument_error("kernel_from_source name '" + name +
                         "' is reserved by C (it starts with __ or _ and a capital): name the function otherwise");
  }
  static constexpr std::string_view used_by_entry_point[] = {"INFINITY", "NAN", "CLK_LOCAL_MEM_FENCE",
                                                             "CLK_GLOBAL_MEM_FENCE"};
  for (const std::string_view macro : used_by_entry_point) {
    if (name == macro) {
      throw argument_error("kernel_from_source name '" + name +
                           "' is a macro of OpenCL C that the generated entry point uses: name the function otherwise");
    }
  }
}

// What Kernel and SourceKernel share: a name and the cache of what was compiled for it, which
// copies share.
template <class State, const char* Name>
class kernel_handle : public shared_handle<State, Name> {
 public:
  const std::string& name() const { return this->state().name; }
  // How many times it has been compiled (once per signature, device and strategy) and called by
  // par_loop (on any backend).
  std::uint64_t compiles() const { return cache().compiles(); }
  std::uint64_t launches() const { return cache().launches(); }
  // How many of its compiled kernels came from another rank (a loop on a distributed set: one
  // rank compiles, the others receive).
  std::uint64_t received() const { return cache().received(); }
  // Compiled kernels kept now: one per signature, runtime and strategy used, until the runtime closes.
  std::size_t launchers() const { return cache().launchers(); }
  kernel_cache& cache() const { return this->state().cache; }

 protected:
  // Its entry in the cache for these arguments: found, or its IR made by make_ir.
  template <class MakeIr, class... Args>
  signature_entry& entry_with(const MakeIr& make_ir, const Args&... args) const {
    const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
    return entry_of(cache(), name(), views, make_ir);
  }
};

inline constexpr char kernel_handle_name[] = "Kernel";
inline constexpr char source_kernel_handle_name[] = "SourceKernel";

template <class F>
struct kernel_state {
  kernel_state(std::string kernel_name, F kernel_fn)
      : name(std::move(kernel_name)), fn(std::move(kernel_fn)), cache(name) {}
  std::string name;
  F fn;
  kernel_cache cache;
};

}  // namespace detail

// A handle: copies share what was traced.
template <class F>
class Kernel : public detail::kernel_handle<detail::kernel_state<F>, detail::kernel_handle_name> {
 public:
  Kernel(std::string name, F fn) {
    detail::check_kernel_name(name);
    this->state_ = std::make_shared<detail::kernel_state<F>>(std::move(name), std::move(fn));
  }

  const F& function() const { return this->state().fn; }
  // How many times the lambda has been traced: once per argument signature.
  std::uint64_t traces() const { return this->cache().traces(); }

  // The kernel's IR for these arguments, traced on first use.
  template <class... Args>
  std::shared_ptr<const ir::kernel> traced(const Args&... args) const {
    return entry(args...).ir;
  }

  // Its entry in the kernel's cache for these arguments: found, or traced.
  template <class... Args>
  detail::signature_entry& entry(const Args&... args) const {
    return this->entry_with([&](std::span<const ir::param>) { return trace(args...); }, args...);
  }
  // The lambda traced with these arguments.
  template <class... Args>
  ir::kernel trace(const Args&... args) const {
    return dsl::trace(this->name(), function(), args...);
  }
  // The lambda traced with these arguments as `params` describe them (a loop over an extruded
  // set's: which are layered, how many slots a map has over interior facets).
  template <class... Args>
  ir::kernel trace_as(std::span<const ir::param> params, const Args&... args) const {
    return dsl::trace_as(this->name(), function(), params, args...);
  }
};

template <class F>
Kernel<F> kernel(std::string name, F fn) {
  return Kernel<F>(std::move(name), std::move(fn));
}

}  // namespace parloop

#if !PARLOOP_COMPILED
#include "parloop/exec/loop/loop_call_impl.hpp"
#endif
