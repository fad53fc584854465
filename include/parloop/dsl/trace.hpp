// SPDX-License-Identifier: MIT
// Tracing: calling a kernel's lambda with symbolic proxies to record its IR.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/dsl/accessor.hpp"
#include "parloop/dsl/params.hpp"
#include "parloop/dsl/recorder.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::dsl {

// The IR parameters of a par_loop's arguments, in order (dsl/params.hpp).
template <class... Args>
requires(parloop::detail::is_loop_arg<Args>&&...) std::array<ir::param, sizeof...(Args)> params_of(
    const Args&... args) {
  const std::array<parloop::detail::arg_view, sizeof...(Args)> views{parloop::detail::view_of(args)...};
  std::array<ir::param, sizeof...(Args)> params{};
  params_of(std::span<const parloop::detail::arg_view>(views), std::span<ir::param>(params));
  return params;
}

template <class F, class... Args, std::size_t... Pos>
ir::kernel trace_with(const std::string& name, const F& f, std::span<const ir::param> params,
                      std::index_sequence<Pos...>, const Args&... args) {
  ir::builder b(name, std::vector<ir::param>(params.begin(), params.end()));
  {
    trace_scope scope(b);
    f(symbolic_accessor<Pos>(args, params[Pos].arity)...);
  }
  return b.take();
}

// The IR of kernel f applied to args, in par_loop order, its parameters as `params` describe
// them (params_of's, or a loop's over an extruded set).
template <class F, class... Args>
ir::kernel trace_as(const std::string& name, const F& f, std::span<const ir::param> params, const Args&... args) {
  return trace_with(name, f, params, std::index_sequence_for<Args...>{}, args...);
}

// The IR of kernel f applied to args, in par_loop order.
template <class F, class... Args>
ir::kernel trace(const std::string& name, const F& f, const Args&... args) {
  const auto params = params_of(args...);
  return trace_as(name, f, std::span<const ir::param>(params), args...);
}

}  // namespace parloop::dsl
