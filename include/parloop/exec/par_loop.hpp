// SPDX-License-Identifier: MIT
// par_loop: apply a kernel to every element of a set (or of a range of it, or of a subset).
#pragma once

#include <array>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "parloop/core/arg.hpp"
#include "parloop/core/autotune.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/host_launch.hpp"
#include "parloop/exec/kernel.hpp"
#include "parloop/exec/loop_call.hpp"
#include "parloop/exec/loop_options.hpp"
#include "parloop/exec/source_kernel.hpp"

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
  }(std::make_index_sequence<most + 1>{});
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
    if constexpr (requires { &F::operator(); }) return takes_a_pointer(&F::operator());
    else return false;
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

namespace detail {

// What a loop iterates: its set, or a subset of it (then the loop's range is positions in the
// subset's elements, current for the loops' numbering).
struct iteration {
  const Set& set;
  subset_state* subset;
};

// The arguments after the set are parsed left to right: a strategy, pl::conflicts, a range or
// pl::autotune replaces the runtime's default (check_options makes the order irrelevant), and
// what remains are the loop's arguments. Declared first, so that each overload sees the others.
template <class K, class... Args>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const Args&... args);
template <class F, class... Args>
void run_checked(const Kernel<F>& k, const iteration& over, const loop_choice& how, range r, const Args&... args);
template <class... Args>
void run_checked(const SourceKernel& k, const iteration& over, const loop_choice& how, range r, const Args&... args);
template <class K, class S, class... Rest>
  requires is_strategy<S>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const S& s, const Rest&... rest);
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range, const range& r, const Rest&... rest);
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const conflicts& c, const Rest&... rest);
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const autotune&, const Rest&... rest);

template <class K, class... Args>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const Args&... args) {
  static_assert((is_loop_arg<Args> && ...),
                "parloop: each argument of par_loop is dat(mode), dat(mode, map, slot), dat(mode, map) or "
                "global(mode), after an optional strategy, pl::conflicts, pl::autotune and pl::range");
  static_assert(sizeof...(Args) <= max_loop_args, "parloop: a par_loop takes at most 64 arguments");
  // Nothing below is instantiated for a kernel that cannot run: one message, not a page.
  if constexpr (std::conjunction_v<std::bool_constant<(is_loop_arg<Args> && ...)>,
                                   std::bool_constant<(sizeof...(Args) <= max_loop_args)>, kernel_fits<K, Args...>>) {
    run_checked(k, over, how, r, args...);
  }
}

// The arguments' types end here: below, the call's views and the kernel's callbacks.
template <class F, class... Args>
void run_checked(const Kernel<F>& k, const iteration& over, const loop_choice& how, range r, const Args&... args) {
  const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
  const auto trace = [&](std::span<const ir::param>) { return k.trace(args...); };
  const auto prepare = [&] { (prepare_on_host(args), ...); };
  const std::span<const index_t> elements =
      over.subset != nullptr ? std::span<const index_t>(over.subset->elements) : std::span<const index_t>{};
  const auto run = [&](range part, std::byte* partials) {
    // What the lambda throws while it runs (a computed index out of range) names the kernel, as
    // a device's report of it does.
    try {
      run_on_host(k.function(), part, elements, partials, args...);
    } catch (const trace_error& e) {
      throw trace_error(fmt::format("kernel '{}': {}", k.name(), e.message()));
    }
  };
  const auto start = [&](std::byte* partials) { start_partials(partials, args...); };
  const auto combine = [&](const std::byte* partials) { combine_partials(partials, args...); };
  run_call({k.name(),
            k.cache(),
            over.set,
            how,
            r,
            views,
            {trace, {prepare, run, partial_bytes<Args...>, start, combine}, true},
            over.subset});
}
template <class... Args>
void run_checked(const SourceKernel& k, const iteration& over, const loop_choice& how, range r, const Args&... args) {
  const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
  const auto source = [&](std::span<const ir::param> params) { return k.ir_for(params); };
  const auto refuse = [&] { k.refuse_host(); };
  const auto run = [&](range, std::byte*) { k.refuse_host(); };
  const auto partials = [&](const std::byte*) { k.refuse_host(); };
  run_call({k.name(), k.cache(), over.set, how, r, views, {source, {refuse, run, 0, partials, partials}, false},
            over.subset});
}

template <class K, class S, class... Rest>
  requires is_strategy<S>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const S& s, const Rest&... rest) {
  how.named.launch = strategy(s);
  how.tune = false;
  run_loop(k, over, how, r, rest...);
}
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range, const range& r, const Rest&... rest) {
  // A range of the user's numbers is no range of the loops' order.
  if (over.set.renumbered()) {
    throw argument_error(fmt::format("par_loop over set '{}': pl::renumber has put its elements in another order, "
                                     "and a loop over it runs them all; it takes no range ([{}, {}) given)",
                                     over.set.name(), r.start, r.end));
  }
  how.ranged = true;
  run_loop(k, over, how, r, rest...);
}
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const conflicts& c, const Rest&... rest) {
  how.named.writes = c;
  how.tune = false;
  run_loop(k, over, how, r, rest...);
}
template <class K, class... Rest>
void run_loop(const K& k, const iteration& over, loop_choice how, range r, const autotune&, const Rest&... rest) {
  how.tune = true;
  run_loop(k, over, how, r, rest...);
}

}  // namespace detail

// Runs k (a pl::kernel or pl::kernel_from_source) over set:
//   par_loop(k, set, args...)
//   par_loop(k, set, pl::range{start, end}, args...)      elements [start, end) only
//   par_loop(k, set, pl::chunked{16, 64}, args...)        this launch strategy, not the runtime's default
//   par_loop(k, set, pl::conflicts::colors, args...)      a launch per colour, not atomics (see core/conflicts.hpp)
//   par_loop(k, set, pl::autotune{}, args...)            the fastest launch, timed first (core/autotune.hpp)
// Arguments: dat(mode), dat(mode, map, slot), dat(mode, map) or global(mode), in the order
// the kernel takes them.
template <class K, class... Rest>
  requires detail::is_kernel<K>
void par_loop(const K& k, const Set& set, const Rest&... rest) {
  static_assert(detail::check_options<Rest...>());
  detail::run_loop(k, detail::iteration{set, nullptr}, detail::default_choice<Rest...>(set.runtime()),
                   range{0, set.size()}, rest...);
}

// Runs k over the elements of a subset (core/subset.hpp), in the loops' order of its set: its
// dats and maps are the set's, read and written at the subset's elements. The same options but
// pl::range; on a device, a loop over a subset is coloured where it combines through maps
// (pl::conflicts is not consulted) and runs the runtime's launch (pl::autotune is not consulted).
template <class K, class... Rest>
  requires detail::is_kernel<K>
void par_loop(const K& k, const Subset& subset, const Rest&... rest) {
  static_assert(detail::check_options<Rest...>());
  static_assert(detail::count_of<detail::range_option, Rest...> == 0,
                "parloop: a loop over a subset runs all its elements and takes no pl::range: make a subset of the "
                "elements wanted");
  detail::subset_state& s = subset.state();
  const std::span<const index_t> elements = s.loop_elements();
  const detail::loop_choice how = detail::default_choice<Rest...>(s.superset.runtime());
  // A subset whose elements are one run of the set's (a subdomain numbered together, half a
  // set) is that range of the set: its loop is the set's, with no list to read and its vector
  // launches. Not on a distributed set, whose loops run regions of their own.
  if (!elements.empty() && s.superset.distribution() == nullptr &&
      elements.back() - elements.front() + 1 == static_cast<index_t>(elements.size())) {
    detail::run_loop(k, detail::iteration{s.superset, nullptr}, how, range{elements.front(), elements.back() + 1},
                     rest...);
    return;
  }
  detail::run_loop(k, detail::iteration{s.superset, &s}, how, range{0, static_cast<index_t>(elements.size())}, rest...);
}

}  // namespace parloop
