// SPDX-License-Identifier: MIT
// Tracing: calling a kernel's lambda with symbolic proxies to record its IR.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/dsl/accessor.hpp"
#include "parloop/dsl/recorder.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::dsl {

namespace detail {
// The position of p among the distinct pointers seen so far, adding it if new.
inline int distinct_index(std::vector<const void*>& seen, const void* p) {
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (seen[i] == p) return static_cast<int>(i);
  }
  seen.push_back(p);
  return static_cast<int>(seen.size() - 1);
}

template <class T, int Dim, access Mode, arg_kind Kind>
ir::param param_of(const arg<T, Dim, Mode, Kind>& a, std::vector<const void*>& datas, std::vector<const void*>& maps) {
  const bool mapped = Kind == arg_kind::indirect || Kind == arg_kind::whole_map;
  return {ir::scalar_of<T>(),
          Dim,
          Mode,
          Kind,
          Kind == arg_kind::indirect ? a.slot : 0,
          mapped ? a.map->arity : 1,
          distinct_index(datas, a.data),
          mapped ? distinct_index(maps, a.map) : -1};
}
}  // namespace detail

// The IR parameters of a par_loop's arguments, in order (a braced list evaluates left to
// right, so distinct dats and maps are numbered by first appearance).
template <class... Args>
std::vector<ir::param> params_of(const Args&... args) {
  std::vector<const void*> datas, maps;
  return std::vector<ir::param>{detail::param_of(args, datas, maps)...};
}

template <class F, class... Args, std::size_t... Pos>
ir::kernel trace_with(const std::string& name, const F& f, std::index_sequence<Pos...>, const Args&... args) {
  ir::builder b(name, params_of(args...));
  {
    trace_scope scope(b);
    f(symbolic_accessor<Pos>(args)...);
  }
  return b.take();
}

// The IR of kernel f applied to args, in par_loop order.
template <class F, class... Args>
ir::kernel trace(const std::string& name, const F& f, const Args&... args) {
  return trace_with(name, f, std::index_sequence_for<Args...>{}, args...);
}

}  // namespace parloop::dsl
