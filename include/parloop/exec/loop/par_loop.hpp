// SPDX-License-Identifier: MIT
// par_loop: apply a kernel to every element of a set (or of a range of it, or of a subset), or to
// every layer of an extruded set's columns (or a region of them).
#pragma once

#include <array>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "parloop/backend/host/launch.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/autotune.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/extruded_set.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/kernel_fits.hpp"
#include "parloop/exec/kernel/source_kernel.hpp"
#include "parloop/exec/loop/iteration.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/exec/loop/loop_options.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {

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
  const auto trace = [&](std::span<const ir::param> params) { return k.trace_as(params, args...); };
  const auto prepare = [&] { (prepare_on_host(args), ...); };
  const std::span<const index_t> elements =
      over.subset != nullptr ? std::span<const index_t>(over.subset->elements) : std::span<const index_t>{};
  const auto run = [&](range part, std::byte* partials) {
    // What the lambda throws while it runs (a computed index out of range) names the kernel, as
    // a device's report of it does.
    try {
      if (over.extrusion.layers > 0)
        run_layers_on_host(k.function(), part, over.set, over.extrusion, partials, args...);
      else
        run_on_host(k.function(), part, elements, partials, args...);
    } catch (const trace_error& e) {
      throw trace_error(parloop::detail::format("kernel '{}': {}", k.name(), e.message()));
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
            over.subset,
            over.extrusion,
            over.run_of});
}
template <class... Args>
void run_checked(const SourceKernel& k, const iteration& over, const loop_choice& how, range r, const Args&... args) {
  const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
  const auto source = [&](std::span<const ir::param> params) { return k.ir_for(params); };
  const auto refuse = [&] { k.refuse_host(); };
  const auto run = [&](range, std::byte*) { k.refuse_host(); };
  const auto partials = [&](const std::byte*) { k.refuse_host(); };
  run_call({k.name(),
            k.cache(),
            over.set,
            how,
            r,
            views,
            {source, {refuse, run, 0, partials, partials}, false},
            over.subset,
            over.extrusion,
            over.run_of});
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
  if (over.extrusion.layers > 0) {
    throw argument_error(
        parloop::detail::format("par_loop over extruded set '{}': a loop over it runs all its columns, and takes "
                                "no range ([{}, {}) given)",
                                over.set.name(), r.start, r.end));
  }
  // A range of the user's numbers is no range of the loops' order.
  if (over.set.renumbered()) {
    throw argument_error(
        parloop::detail::format("par_loop over set '{}': pl::renumber has put its elements in another order, "
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
// Over an extruded set (core/extruded_set.hpp), it runs every layer of every column: the
// kernel's dats on the extruded set are the cell's, those on the base set the column's, and maps
// from the extruded set (pl::extrude) move up with the layer; pl::layer() is the cell's layer.
template <class K, class... Rest>
requires detail::is_kernel<K>
void par_loop(const K& k, const Set& set, const Rest&... rest) {
  static_assert(detail::check_options<Rest...>());
  const detail::iteration over = detail::iteration_over(set);
  detail::run_loop(k, over, detail::default_choice<Rest...>(set.runtime()), detail::whole_range(over), rest...);
}

// Runs k over a region of each column of an extruded set: cells.bottom(), cells.top(), or
// cells.interior_facets(), whose kernel sees through each map from the extruded set the slots of
// the cell below the facet, then those of the cell above (twice the map's arity).
template <class K, class... Rest>
requires detail::is_kernel<K>
void par_loop(const K& k, const ExtrudedRegion& part, const Rest&... rest) {
  static_assert(detail::check_options<Rest...>());
  const detail::iteration over{part.set(), nullptr, detail::layers_of(part.set(), part.which())};
  detail::run_loop(k, over, detail::default_choice<Rest...>(part.set().runtime()), detail::whole_range(over), rest...);
}

// Runs k over the elements of a subset (core/subset.hpp), in the loops' order of its set: its
// dats and maps are the set's, read and written at the subset's elements. The same options but
// pl::range; a loop over a subset is coloured where it combines through maps (pl::conflicts is
// not consulted) and runs the runtime's launch (pl::autotune is not consulted), whatever its
// elements.
template <class K, class... Rest>
requires detail::is_kernel<K>
void par_loop(const K& k, const Subset& subset, const Rest&... rest) {
  static_assert(detail::check_options<Rest...>());
  static_assert(detail::count_of<detail::range_option, Rest...> == 0,
                "parloop: a loop over a subset runs all its elements and takes no pl::range: make a subset of the "
                "elements wanted");
  detail::subset_state& s = subset.state();
  if (s.superset.extruded()) {
    throw argument_error(
        parloop::detail::format("par_loop over subset '{}': its set '{}' is extruded, and loops over subsets of "
                                "extruded sets are not supported: loop over the set or a region of it",
                                s.name, s.superset.name()));
  }
  const std::span<const index_t> elements = s.loop_elements();
  const detail::loop_choice how = detail::default_choice<Rest...>(s.superset.runtime());
  // A subset whose elements are one run of the set's (a subdomain numbered together, half a
  // set) is run as that range of the set, with no list to read and its vector launches, and by
  // the rules of any subset: the same answers, bit for bit, as a list of the same elements. Not on
  // a distributed set, whose loops run regions of their own.
  if (!elements.empty() && s.superset.distribution() == nullptr &&
      elements.back() - elements.front() + 1 == static_cast<index_t>(elements.size())) {
    detail::run_loop(k, detail::iteration{s.superset, nullptr, {}, &s}, how,
                     range{elements.front(), elements.back() + 1}, rest...);
    return;
  }
  detail::run_loop(k, detail::iteration{s.superset, &s}, how, range{0, static_cast<index_t>(elements.size())}, rest...);
}

}  // namespace parloop
