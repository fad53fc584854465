// SPDX-License-Identifier: MIT
// par_loop: apply a kernel to every element of a set (or of a range of it).
#pragma once

#include <type_traits>

#include "parloop/backend/host/launch.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/set.hpp"
#include "parloop/dsl/kernel.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/check.hpp"
#include "parloop/exec/range.hpp"

namespace parloop {

namespace detail {
template <class A>
inline constexpr bool is_loop_arg = false;
template <class T, int Dim, access Mode, arg_kind Kind>
inline constexpr bool is_loop_arg<arg<T, Dim, Mode, Kind>> = true;
}  // namespace detail

// Runs k on elements [r.start, r.end) of set. Arguments: dat(mode), dat(mode, map, slot),
// dat(mode, map) or global(mode), in the order the kernel takes them.
template <class F, class... Args>
void par_loop(const Kernel<F>& k, const Set& set, range r, const Args&... args) {
  static_assert((detail::is_loop_arg<Args> && ...),
                "parloop: each argument of par_loop is dat(mode), dat(mode, map, slot), dat(mode, map) or "
                "global(mode)");
  detail::check_loop(k.name(), set, r, args...);
  // Tracing checks the rules only a trace can see, so every backend refuses the same kernels.
  k.traced(args...);
  switch (set.runtime().kind()) {
    case backend_kind::host:
      backend::host::launch(k.function(), r, args...);
      return;
    case backend_kind::opencl:
    case backend_kind::cuda:
      break;
  }
  throw backend_unavailable("backend '" + std::string(set.runtime().name()) + "' cannot run loops in this version");
}

// Runs k on every element of set.
template <class F, class... Args>
void par_loop(const Kernel<F>& k, const Set& set, const Args&... args) {
  par_loop(k, set, range{0, set.size()}, args...);
}

}  // namespace parloop
