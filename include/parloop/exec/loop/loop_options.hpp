// SPDX-License-Identifier: MIT
// par_loop's options (a launch strategy, pl::conflicts, pl::range, pl::autotune), checked at
// compile time, and the runtime's launch for a loop that names none.
#pragma once

#include <type_traits>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/autotune.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/loop/loop_call.hpp"

namespace parloop::detail {

// A global reduced into (INC, MIN, MAX): loops with one take the runtime's reduction strategy.
template <class A>
inline constexpr bool is_reduction = false;
template <class T, int Dim, access Mode>
inline constexpr bool is_reduction<arg<T, Dim, Mode, arg_kind::global>> = Mode != access::read;

template <class S>
inline constexpr bool is_strategy =
    std::is_same_v<S, strategy> || std::is_same_v<S, split_n_across_workgroups> || std::is_same_v<S, grid_stride> ||
    std::is_same_v<S, chunked> || std::is_same_v<S, vectors_across_workgroups>;

// How many of `Options` are of the kind `is`.
template <template <class> class Is, class... Options>
inline constexpr int count_of = (0 + ... + (Is<Options>::value ? 1 : 0));
template <class S>
struct strategy_option : std::bool_constant<is_strategy<S>> {};
template <class T>
struct range_option : std::is_same<T, range> {};
template <class T>
struct conflicts_option : std::is_same<T, conflicts> {};
template <class T>
struct autotune_option : std::is_same<T, autotune> {};

// par_loop's options mean the same in any order: each is named at most once, and pl::autotune,
// which chooses the strategy and the conflicts by timing, is not named with either.
template <class... Rest>
constexpr bool check_options() {
  constexpr int strategies = count_of<strategy_option, Rest...>, ranges = count_of<range_option, Rest...>,
                conflicts_named = count_of<conflicts_option, Rest...>, autotunes = count_of<autotune_option, Rest...>;
  static_assert(strategies <= 1, "parloop: par_loop names a launch strategy more than once: name one");
  static_assert(ranges <= 1, "parloop: par_loop names pl::range more than once: name one");
  static_assert(conflicts_named <= 1, "parloop: par_loop names pl::conflicts more than once: name one");
  static_assert(autotunes <= 1, "parloop: par_loop names pl::autotune more than once");
  static_assert(autotunes == 0 || strategies + conflicts_named == 0,
                "parloop: pl::autotune chooses the launch strategy and pl::conflicts by timing: name either "
                "pl::autotune or a strategy and pl::conflicts, not both");
  return true;
}

// The runtime's launch for a loop with these arguments: its reduction strategy where one reduces
// into a global.
template <class... Rest>
loop_choice default_choice(const Runtime& rt) {
  const strategy& s = (is_reduction<Rest> || ...) ? rt.default_reduction_strategy() : rt.default_strategy();
  return loop_choice{{s, rt.default_conflicts()}, rt.autotunes()};
}

}  // namespace parloop::detail
