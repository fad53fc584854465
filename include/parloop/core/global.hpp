// SPDX-License-Identifier: MIT
// Global: Dim values for a whole loop, a constant (READ) or a reduction target (INC, MIN, MAX).
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/handle.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/error.hpp"

namespace parloop {

// A handle: copies share the value. A reduction combines with the value the global holds:
// INC adds to it, MIN and MAX compare against it, as in OP2.
template <class T, int Dim = 1>
class Global : public detail::shared_handle<detail::array_state<T>, detail::global_handle_name> {
  using handle = detail::shared_handle<detail::array_state<T>, detail::global_handle_name>;
  static_assert(is_data_scalar<T>, "parloop: a Global holds float, double, std::int32_t or std::int64_t");
  static_assert(Dim >= 1, "parloop: a Global has at least one component");

 public:
  using value_type = T;
  static constexpr int dim = Dim;

  explicit Global(const Runtime& rt, T value = T{}, std::string name = {}) requires(Dim == 1)
      : Global(rt, std::array<T, 1>{value}, std::move(name)) {}

  Global(const Runtime& rt, const std::array<T, Dim>& values, std::string name = {}) {
    if (name.empty()) name = detail::default_name("global");
    state_ = std::make_shared<detail::array_state<T>>(rt, std::nullopt, std::vector<T>(values.begin(), values.end()),
                                                      std::move(name));
  }

  const std::string& name() const { return state().name; }

  // Waits for the device if the value was computed there, then reads it.
  T value() const requires(Dim == 1) { return values()[0]; }
  std::array<T, Dim> values() const {
    state().array.ensure_host(state().device());
    std::array<T, Dim> out{};
    for (int k = 0; k < Dim; ++k) out[static_cast<std::size_t>(k)] = state().host[static_cast<std::size_t>(k)];
    return out;
  }
  void set_value(T value) requires(Dim == 1) { set_values({value}); }
  void set_values(const std::array<T, Dim>& values) {
    // Every value is set: nothing to fetch from the device first.
    state().array.host_overwritten();
    std::copy(values.begin(), values.end(), state().host.begin());
  }

  template <access Mode>
  arg<T, Dim, Mode, arg_kind::global> operator()(access_tag<Mode>) const {
    static_assert(Mode == access::read || is_combining(Mode),
                  "parloop: a Global is pl::READ (a constant) or pl::INC, pl::MIN, pl::MAX (a reduction)");
    return {&state()};
  }

  using handle::state;

 private:
  using handle::state_;
};

}  // namespace parloop
