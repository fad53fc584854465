// SPDX-License-Identifier: MIT
// Tracing: calling a kernel's lambda with symbolic proxies to record its IR.
#pragma once

#include <array>
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
// The position of p among the n distinct pointers seen so far, adding it if new.
template <std::size_t N>
int distinct_index(std::array<const void*, N>& seen, std::size_t& n, const void* p) {
  for (std::size_t i = 0; i < n; ++i) {
    if (seen[i] == p) return static_cast<int>(i);
  }
  seen[n] = p;
  return static_cast<int>(n++);
}

template <class T, int Dim, access Mode, arg_kind Kind, std::size_t N>
ir::param param_of(const arg<T, Dim, Mode, Kind>& a, std::array<const void*, N>& datas, std::size_t& n_datas,
                   std::array<const void*, N>& maps, std::size_t& n_maps) {
  const bool mapped = Kind == arg_kind::indirect || Kind == arg_kind::whole_map;
  return {scalar_of<T>(),
          Dim,
          Mode,
          Kind,
          Kind == arg_kind::indirect ? a.slot : 0,
          mapped ? a.map->arity : 1,
          distinct_index(datas, n_datas, a.data),
          mapped ? distinct_index(maps, n_maps, a.map) : -1};
}
}  // namespace detail

// The IR parameters of a par_loop's arguments, in order (a braced list evaluates left to
// right, so distinct dats and maps are numbered by first appearance). No allocation: this
// runs on every par_loop.
template <class... Args>
std::array<ir::param, sizeof...(Args)> params_of(const Args&... args) {
  std::array<const void*, sizeof...(Args)> datas{}, maps{};
  [[maybe_unused]] std::size_t n_datas = 0, n_maps = 0;
  return std::array<ir::param, sizeof...(Args)>{detail::param_of(args, datas, n_datas, maps, n_maps)...};
}

template <class F, class... Args, std::size_t... Pos>
ir::kernel trace_with(const std::string& name, const F& f, std::index_sequence<Pos...>, const Args&... args) {
  const auto params = params_of(args...);
  ir::builder b(name, std::vector<ir::param>(params.begin(), params.end()));
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
