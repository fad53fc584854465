// SPDX-License-Identifier: MIT
// The checks every par_loop makes before it runs: each argument fits the loop.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"

namespace parloop::detail {

// An RW or WRITE argument through a map is copied in, changed and stored back by each element:
// two elements that reach one target would race on a device (one store lost) and not on the
// host; coloured, they would run in another order than the host's. Such a loop is refused on
// every backend.
template <class T, int Dim, access Mode, arg_kind Kind>
void check_distinct_targets(const std::string& where, range r, const arg<T, Dim, Mode, Kind>& a) {
  const int slot = Kind == arg_kind::whole_map ? map_state::whole_map : a.slot;
  const auto c = a.map->first_collision(slot, r.start, r.end);
  if (!c) return;
  const std::string through = Kind == arg_kind::whole_map ? fmt::format("map '{}'", a.map->name)
                                                          : fmt::format("slot {} of map '{}'", a.slot, a.map->name);
  throw argument_error(fmt::format(
      "{}: dat '{}' is declared {} through {}, which sends elements {} and {} both to element {} of '{}': their "
      "stores would race on a device. Declare it pl::INC if the kernel adds to it (pl::MIN / pl::MAX for a "
      "minimum / maximum), or loop over a map whose targets are distinct",
      where, a.data->name, Mode == access::rw ? "pl::RW" : "pl::WRITE", through, c->first, c->second, c->target,
      a.map->to.name()));
}

template <class T, int Dim, access Mode, arg_kind Kind>
void check_arg(const std::string& kernel, const Set& set, range r, std::size_t pos,
               const arg<T, Dim, Mode, Kind>& a) {
  const auto where = [&] { return fmt::format("par_loop '{}' over '{}', argument {}", kernel, set.name(), pos); };
  if (!(a.data->runtime == set.runtime())) {
    throw argument_error(fmt::format("{}: '{}' belongs to another runtime than the set", where(), a.data->name));
  }
  if constexpr (Kind != arg_kind::global) {
    // A loop over a set that is not distributed has no halo to bring the values of one that is.
    if ((set.distribution() == nullptr) != (a.data->set->distribution() == nullptr)) {
      throw argument_error(fmt::format("{}: dat '{}' is on set '{}', which is {}distributed over ranks, and the loop's "
                                       "set '{}' is {}",
                                       where(), a.data->name, a.data->set->name(),
                                       set.distribution() == nullptr ? "" : "not ", set.name(),
                                       set.distribution() == nullptr ? "not" : "distributed"));
    }
  }
  if constexpr (Kind == arg_kind::direct) {
    if (!(*a.data->set == set)) {
      throw argument_error(fmt::format("{}: dat '{}' is on set '{}', not on the iteration set; pass it through a map",
                                       where(), a.data->name, a.data->set->name()));
    }
  } else if constexpr (Kind == arg_kind::indirect || Kind == arg_kind::whole_map) {
    if (!(a.map->from == set)) {
      throw argument_error(fmt::format("{}: map '{}' maps from set '{}', not from the iteration set", where(),
                                       a.map->name, a.map->from.name()));
    }
    if (!(a.map->to == *a.data->set)) {
      throw argument_error(fmt::format("{}: map '{}' maps to set '{}', but dat '{}' is on set '{}'", where(),
                                       a.map->name, a.map->to.name(), a.data->name, a.data->set->name()));
    }
    if (r.end > a.map->rows) {
      throw argument_error(fmt::format("{}: map '{}' has values for the first {} elements of '{}' (those this rank "
                                       "executes), not for [{}, {})",
                                       where(), a.map->name, a.map->rows, set.name(), r.start, r.end));
    }
    if (a.slot < 0 || a.slot >= a.map->arity) {
      throw argument_error(fmt::format("{}: slot {} of map '{}', which has arity {}", where(), a.slot, a.map->name,
                                       a.map->arity));
    }
    if constexpr (Mode == access::rw || Mode == access::write) check_distinct_targets(where(), r, a);
  }
}

template <class... Args, std::size_t... Pos>
void check_args(const std::string& kernel, const Set& set, range r, std::index_sequence<Pos...>,
                const Args&... args) {
  (check_arg(kernel, set, r, Pos, args), ...);
}

template <class... Args>
void check_loop(const std::string& kernel, const Set& set, range r, const Args&... args) {
  if (r.start < 0 || r.start > r.end || r.end > set.size()) {
    throw argument_error(fmt::format("par_loop '{}': range [{}, {}) is not within set '{}' of size {}", kernel,
                                     r.start, r.end, set.name(), set.size()));
  }
  check_args(kernel, set, r, std::index_sequence_for<Args...>{}, args...);
}

}  // namespace parloop::detail
