// SPDX-License-Identifier: MIT
// par_loop: apply a kernel to every element of a set (or of a range of it).
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "parloop/backend/host/launch.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/set.hpp"
#include "parloop/dsl/kernel.hpp"
#include "parloop/dsl/source_kernel.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/check.hpp"
#include "parloop/exec/range.hpp"

namespace parloop {

namespace detail {
template <class A>
inline constexpr bool is_loop_arg = false;
template <class T, int Dim, access Mode, arg_kind Kind>
inline constexpr bool is_loop_arg<arg<T, Dim, Mode, Kind>> = true;

template <class K>
inline constexpr bool is_kernel = std::is_same_v<K, SourceKernel>;
template <class F>
inline constexpr bool is_kernel<Kernel<F>> = true;

template <class F, class... Args>
std::shared_ptr<const ir::kernel> kernel_ir(const Kernel<F>& k, const Args&... args) {
  return k.traced(args...);
}
template <class... Args>
std::shared_ptr<const ir::kernel> kernel_ir(const SourceKernel& k, const Args&... args) {
  return k.ir(args...);
}

template <class F, class... Args>
void run_on_host(const Kernel<F>& k, range r, const Args&... args) {
  backend::host::launch(k.function(), r, args...);
}
template <class... Args>
void run_on_host(const SourceKernel& k, range, const Args&...) {
  throw backend_unavailable("kernel '" + k.name() +
                            "' is C source: it needs a device backend (PARLOOP_BACKEND=opencl or cuda); the host "
                            "backend runs pl::kernel lambdas");
}
}  // namespace detail

// Runs k (a pl::kernel or pl::kernel_from_source) on elements [r.start, r.end) of set.
// Arguments: dat(mode), dat(mode, map, slot), dat(mode, map) or global(mode), in the order
// the kernel takes them.
template <class K, class... Args>
  requires detail::is_kernel<K>
void par_loop(const K& k, const Set& set, range r, const Args&... args) {
  static_assert((detail::is_loop_arg<Args> && ...),
                "parloop: each argument of par_loop is dat(mode), dat(mode, map, slot), dat(mode, map) or "
                "global(mode)");
  detail::check_loop(k.name(), set, r, args...);
  // Tracing checks the rules only a trace can see, so every backend refuses the same kernels.
  detail::kernel_ir(k, args...);
  switch (set.runtime().kind()) {
    case backend_kind::host:
      detail::run_on_host(k, r, args...);
      return;
    case backend_kind::opencl:
    case backend_kind::cuda:
      break;
  }
  throw backend_unavailable("backend '" + std::string(set.runtime().name()) + "' cannot run loops in this version");
}

// Runs k on every element of set.
template <class K, class... Args>
  requires detail::is_kernel<K>
void par_loop(const K& k, const Set& set, const Args&... args) {
  par_loop(k, set, range{0, set.size()}, args...);
}

}  // namespace parloop
