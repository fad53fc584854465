// SPDX-License-Identifier: MIT
// The host backend: runs the kernel lambda on plain values, element by element, in order.
// It is the reference every device backend is tested against. It is in exec/, with the loop
// that calls it, since it has no device to open: no files of its own under backend/.
#pragma once

#include <utility>

#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/dsl/accessor.hpp"

namespace parloop::detail {

template <class T, int Dim, access Mode, arg_kind Kind>
void prepare_on_host(const arg<T, Dim, Mode, Kind>& a) {
  array_state<T>& s = *a.data;
  if constexpr (is_modified(Mode)) s.array.host_written(s.device());
  else s.array.ensure_host(s.device());
}

template <class F, class... Args, std::size_t... Pos>
void launch_on_host_with(const F& f, range r, std::index_sequence<Pos...>, const Args&... args) {
  (prepare_on_host(args), ...);
  for (index_t e = r.start; e < r.end; ++e) f(dsl::host_accessor<Pos>(args, e)...);
}

template <class F, class... Args>
void launch_on_host(const F& f, range r, const Args&... args) {
  launch_on_host_with(f, r, std::index_sequence_for<Args...>{}, args...);
}

}  // namespace parloop::detail
