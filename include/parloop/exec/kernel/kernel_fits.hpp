// SPDX-License-Identifier: MIT
// Whether a kernel can take a par_loop's arguments: checked at compile time, each way it cannot
// with a message of its own (a lambda of another parameter count, pointer parameters, a result).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "parloop/core/arg.hpp"
#include "parloop/dsl/accessor.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/source_kernel.hpp"

namespace parloop {

namespace detail {
template <class K>
inline constexpr bool is_kernel = std::is_same_v<K, SourceKernel>;
template <class F>
inline constexpr bool is_kernel<Kernel<F>> = true;

// Whether a kernel can take par_loop's arguments as its tracer passes them, and returns nothing.
// A kernel from source always can: its C function is checked by the device compiler.
template <class F, class... Args, std::size_t... Pos>
constexpr bool takes_arguments(std::index_sequence<Pos...>) {
  return std::is_invocable_v<const F&, decltype(dsl::symbolic_accessor<Pos>(std::declval<const Args&>()))...>;
}
template <class F, class... Args, std::size_t... Pos>
constexpr bool returns_nothing(std::index_sequence<Pos...>) {
  return std::is_void_v<
      std::invoke_result_t<const F&, decltype(dsl::symbolic_accessor<Pos>(std::declval<const Args&>()))...>>;
}
// The tracer's accessors of par_loop's arguments as a tuple of types, each read-write: a probe of
// the lambda's parameter count may pass an argument to another parameter than the user meant,
// and must not trip an access rule there.
template <class A>
using read_write_arg = arg<typename A::value_type, A::dim, access::rw, A::kind>;
template <class... Args, std::size_t... Pos>
auto accessor_types(std::index_sequence<Pos...>)
    -> std::tuple<decltype(dsl::symbolic_accessor<Pos>(std::declval<const read_write_arg<Args>&>()))...>;

// Whether F takes M accessors: the arguments' first M, or past the last the last one again.
template <class F, class Accessors, std::size_t... I>
constexpr bool takes_count(std::index_sequence<I...>) {
  constexpr std::size_t n = std::tuple_size_v<Accessors>;
  return std::is_invocable_v<const F&, std::tuple_element_t<(I < n ? I : n - 1), Accessors>...>;
}

// How many parameters a kernel lambda takes that does not take par_loop's arguments: tried from 0
// to three more than the arguments (a call of another count fails without instantiating the
// body); -1 if none fits.
template <class F, class... Args>
constexpr int parameter_count() {
  using accessors = decltype(accessor_types<Args...>(std::index_sequence_for<Args...>{}));
  constexpr std::size_t most = sizeof...(Args) == 0 ? 0 : sizeof...(Args) + 3;
  int found = -1;
  [&]<std::size_t... M>(std::index_sequence<M...>) {
    ((found < 0 && takes_count<F, accessors>(std::make_index_sequence<M>{}) ? (found = static_cast<int>(M)) : 0), ...);
  }
  (std::make_index_sequence<most + 1>{});
  return found;
}

// Where the counts differ, the instantiation names both: parameter_count_differs<2, 3> is a
// lambda of 2 parameters given 3 arguments.
template <int LambdaTakes, int LoopPasses>
struct parameter_count_differs {
  static_assert(LambdaTakes < 0 || LambdaTakes == LoopPasses,
                "parloop: the kernel lambda takes another number of parameters than par_loop passes arguments "
                "(parameter_count_differs<lambda's, par_loop's> above): one `auto` parameter per argument after the "
                "set, the optional strategy and range");
  static constexpr bool value = LambdaTakes == LoopPasses;
};

template <class R, class C, class... P>
constexpr bool takes_a_pointer(R (C::*)(P...) const) {
  return (std::is_pointer_v<std::remove_cvref_t<P>> || ...);
}
template <class R, class C, class... P>
constexpr bool takes_a_pointer(R (C::*)(P...)) {
  return (std::is_pointer_v<std::remove_cvref_t<P>> || ...);
}

template <class K, class... Args>
struct kernel_fits : std::true_type {};
template <class F, class... Args>
struct kernel_fits<Kernel<F>, Args...> {
  // An OP2 kernel's parameters are pointers to the arguments' values. A generic lambda cannot be
  // probed with pointers (its body would be instantiated); a lambda with declared parameters can
  // be read.
  static constexpr bool pointers = [] {
    if constexpr (requires { &F::operator(); })
      return takes_a_pointer(&F::operator());
    else
      return false;
  }();
  static_assert(!pointers,
                "parloop: a kernel lambda takes `auto` parameters, not pointers: [](auto q, auto r) { r[0] = q[0]; }; "
                "an OP2 kernel in C runs unchanged through pl::kernel_from_source(name, c_source)");
  static constexpr bool takes = !pointers && takes_arguments<F, Args...>(std::index_sequence_for<Args...>{});
  static constexpr int count = takes || pointers ? static_cast<int>(sizeof...(Args)) : parameter_count<F, Args...>();
  // A count that differs has its own message; otherwise (auto&, a parameter of a wrong type) this one.
  static constexpr bool counts_differ =
      count >= 0 && !parameter_count_differs<count, static_cast<int>(sizeof...(Args))>::value;
  static_assert(takes || pointers || counts_differ,
                "parloop: the kernel lambda cannot take par_loop's arguments: it takes one `auto` parameter per "
                "argument after the set (and the optional strategy and range), in order, by value -- not auto&");
  static constexpr bool value = [] {
    if constexpr (takes) {
      constexpr bool nothing = returns_nothing<F, Args...>(std::index_sequence_for<Args...>{});
      static_assert(nothing,
                    "parloop: a kernel returns nothing: it writes its results into its pl::WRITE, pl::RW, pl::INC, "
                    "pl::MIN or pl::MAX arguments");
      return nothing;
    } else {
      return false;
    }
  }();
};

}  // namespace detail

}  // namespace parloop
