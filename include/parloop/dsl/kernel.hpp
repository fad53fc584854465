// SPDX-License-Identifier: MIT
// pl::kernel: a named kernel lambda and what has been traced from it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <typeindex>
#include <utility>
#include <vector>

#include "parloop/dsl/trace.hpp"
#include "parloop/error.hpp"
#include "parloop/ir/builder.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop {

namespace detail {

// One traced form of a kernel: argument types (as the type of the argument pack) plus the
// map arities the types do not fix.
struct trace_entry {
  std::type_index signature;
  std::vector<int> arities;
  std::shared_ptr<const ir::kernel> ir;
};

template <class F>
struct kernel_state {
  kernel_state(std::string kernel_name, F kernel_fn) : name(std::move(kernel_name)), fn(std::move(kernel_fn)) {}
  std::string name;
  F fn;
  std::mutex mutex;
  std::vector<trace_entry> traces;
  std::atomic<std::uint64_t> trace_count{0};
};

}  // namespace detail

// A handle: copies share what was traced.
template <class F>
class Kernel {
 public:
  Kernel(std::string name, F fn) {
    if (!ir::detail::is_identifier(name) || ir::detail::is_reserved_word(name)) {
      throw argument_error("kernel name '" + name +
                           "' cannot name generated code: use a C identifier that is not a keyword and does not "
                           "start with pl_ or __");
    }
    state_ = std::make_shared<detail::kernel_state<F>>(std::move(name), std::move(fn));
  }

  const std::string& name() const { return state_->name; }
  const F& function() const { return state_->fn; }
  // How many times the lambda has been traced (once per argument signature).
  std::uint64_t traces() const { return state_->trace_count.load(); }

  // The kernel's IR for these arguments, traced on first use.
  template <class... Args>
  std::shared_ptr<const ir::kernel> traced(const Args&... args) const {
    const std::type_index signature(typeid(std::tuple<Args...>));
    std::vector<int> arities{dsl::param_of(args).arity...};
    std::lock_guard lock(state_->mutex);
    for (const detail::trace_entry& t : state_->traces) {
      if (t.signature == signature && t.arities == arities) return t.ir;
    }
    auto ir = std::make_shared<const ir::kernel>(dsl::trace(state_->name, state_->fn, args...));
    state_->trace_count.fetch_add(1);
    state_->traces.push_back({signature, std::move(arities), ir});
    return ir;
  }

 private:
  std::shared_ptr<detail::kernel_state<F>> state_;
};

template <class F>
Kernel<F> kernel(std::string name, F fn) {
  return Kernel<F>(std::move(name), std::move(fn));
}

}  // namespace parloop
