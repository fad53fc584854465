// SPDX-License-Identifier: MIT
// pl::kernel: a named kernel lambda and what has been traced from it.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <typeindex>
#include <utility>

#include "parloop/cache/kernel_cache.hpp"
#include "parloop/dsl/aliasing.hpp"
#include "parloop/dsl/trace.hpp"
#include "parloop/error.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop {

namespace detail {

inline void check_kernel_name(const std::string& name) {
  if (!ir::detail::is_identifier(name) || ir::detail::is_reserved_word(name)) {
    throw argument_error("kernel name '" + name +
                         "' cannot name generated code: use a C identifier that is not a keyword and does not "
                         "start with pl_ or __");
  }
}

template <class F>
struct kernel_state {
  kernel_state(std::string kernel_name, F kernel_fn) : name(std::move(kernel_name)), fn(std::move(kernel_fn)) {}
  std::string name;
  F fn;
  kernel_cache cache;
};

}  // namespace detail

// A handle: copies share what was traced.
template <class F>
class Kernel {
 public:
  Kernel(std::string name, F fn) {
    detail::check_kernel_name(name);
    state_ = std::make_shared<detail::kernel_state<F>>(std::move(name), std::move(fn));
  }

  const std::string& name() const { return state_->name; }
  const F& function() const { return state_->fn; }
  // How many times the lambda has been traced (once per argument signature), compiled (once
  // per signature, device and strategy) and launched on a device.
  std::uint64_t traces() const { return state_->cache.traces(); }
  std::uint64_t compiles() const { return state_->cache.compiles(); }
  std::uint64_t launches() const { return state_->cache.launches(); }
  // Compiled kernels kept now: one per signature, runtime and strategy used, until the runtime closes.
  std::size_t launchers() const { return state_->cache.launchers(); }

  // The kernel's IR for these arguments, traced on first use.
  template <class... Args>
  std::shared_ptr<const ir::kernel> traced(const Args&... args) const {
    return entry(args...).ir;
  }

  template <class... Args>
  detail::signature_entry& entry(const Args&... args) const {
    const auto params = dsl::params_of(args...);
    return state_->cache.get(typeid(std::tuple<Args...>), params, [&] {
      dsl::check_aliasing(state_->name, params, args...);
      return dsl::trace(state_->name, state_->fn, args...);
    });
  }
  detail::kernel_cache& cache() const { return state_->cache; }

 private:
  std::shared_ptr<detail::kernel_state<F>> state_;
};

template <class F>
Kernel<F> kernel(std::string name, F fn) {
  return Kernel<F>(std::move(name), std::move(fn));
}

}  // namespace parloop
