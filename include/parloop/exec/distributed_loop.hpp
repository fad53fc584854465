// SPDX-License-Identifier: MIT
// A par_loop over a set distributed over ranks, as OP2 runs one: the halos the loop reads start
// arriving, the core (elements that reach no halo) runs meanwhile, then the rest once they are
// in. A loop that writes through a map runs the exec halo too, redundantly, so that what its
// owned targets receive is complete without sending increments back. Reductions count owned
// elements only and end in an all-reduce over the ranks.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/check.hpp"
#include "parloop/exec/device_run.hpp"
#include "parloop/exec/halo.hpp"
#include "parloop/exec/run_range.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::detail {

template <class A>
inline constexpr bool writes_through_map =
    (A::kind == arg_kind::indirect || A::kind == arg_kind::whole_map) && A::mode != access::read;

// An RW or WRITE through a map: its targets must be distinct, which only their owners can see.
template <class A>
inline constexpr bool writes_one_at_a_time =
    (A::kind == arg_kind::indirect || A::kind == arg_kind::whole_map) &&
    (A::mode == access::rw || A::mode == access::write);

template <class A>
inline constexpr bool reads_dat =
    A::kind != arg_kind::global && (A::mode == access::read || A::mode == access::rw);

// Whether the loop needs a's halo: read through a map, or read directly where the loop runs the
// exec halo of its set.
template <class A>
bool needs_halo(const A& a, bool runs_exec_halo) {
  if constexpr (reads_dat<A>) {
    return !a.data->halo_current && (A::kind != arg_kind::direct || runs_exec_halo);
  } else {
    return false;
  }
}

// The dat's own set says who exchanges it (the loop's set, or the target of its map).
template <class A>
const set_distribution& exchanged_by(const A& a, const set_distribution& loop_set) {
  return A::kind == arg_kind::direct ? loop_set : *a.data->set->distribution();
}

// Packs a's exports where the loop needs its halo; the halo counts as current from here on (a
// second argument of the same dat packs nothing). Whether there is anything to send.
template <class A>
bool pack_if_needed(const A& a, const set_distribution& loop_set, bool runs_exec_halo) {
  if (!needs_halo(a, runs_exec_halo)) return false;
  const set_distribution& d = exchanged_by(a, loop_set);
  // A rank that neither sends nor receives any of the set (one rank alone, or a share apart) has
  // no messages that others wait for: nothing to pack or wait for.
  const bool messages = !d.exports.empty() || !d.imports.empty();
  if (messages) pack_exports<typename A::value_type, A::dim>(*a.data, d);
  a.data->halo_current = true;
  return messages;
}

template <class A>
std::unique_ptr<halo_transfer> send_if_packed(const A& a, const set_distribution& loop_set, bool packed) {
  if (!packed) return nullptr;
  return send_exports<typename A::value_type, A::dim>(*a.data, exchanged_by(a, loop_set));
}

template <class A>
void finish_if_started(const A& a, std::unique_ptr<halo_transfer>& t) {
  if (!t) return;
  if constexpr (reads_dat<A>) finish_exchange<typename A::value_type, A::dim>(*a.data, *t);
  t.reset();
}

template <class A>
inline constexpr bool is_sum = A::kind == arg_kind::global && A::mode == access::inc;
template <class A>
inline constexpr bool reduces = A::kind == arg_kind::global && A::mode != access::read;

// A global that sums: only the first rank brings the value it holds into the sum, the others
// add to zero.
template <class A>
void start_sum(const A& a, int rank) {
  if constexpr (is_sum<A>) {
    if (rank == 0) return;
    a.data->array.host_overwritten();
    for (auto& v : a.data->host) v = typename A::value_type{};
  }
}

// The argument as the exec halo's elements take it: a sum goes to a global that is dropped.
template <class A>
A over_exec_halo(const A& a) {
  if constexpr (is_sum<A>) {
    auto& h = a.data->halo;
    if (!h) h = std::make_unique<halo_parts<typename A::value_type>>();
    if (!h->dropped) {
      h->dropped = std::make_unique<array_state<typename A::value_type>>(a.data->runtime, std::nullopt, a.data->host,
                                                                           a.data->name + ":exec_halo");
    }
    // From zero each time, so that what it adds up never overflows.
    h->dropped->array.host_overwritten();
    for (auto& v : h->dropped->host) v = typename A::value_type{};
    return A{h->dropped.get()};
  } else {
    return a;
  }
}

template <class A>
void finish_reduction(const A& a, rank_link& link) {
  if constexpr (reduces<A>) {
    auto& s = *a.data;
    s.array.ensure_host(s.device());
    link.all_reduce(s.host.data(), A::dim, scalar_of<typename A::value_type>(), A::mode);
    s.array.host_overwritten();
  }
}

template <class A>
void after_loop(const A& a) {
  if constexpr (A::kind != arg_kind::global && A::mode != access::read) a.data->halo_current = false;
}

// PARLOOP_MPI_CHECK: every rank runs this loop here, and all agree on which of its halos are
// stale. Each value goes into one minimum both as itself and negated, so one all-reduce gives the
// smallest and the largest over the ranks: alike where they are equal.
template <class... Args>
void check_same_calls(std::string_view loop, const Set& set, const set_distribution& d, bool runs_exec_halo,
                      const Args&... args) {
  rank_link& link = *d.link;
  const auto spread = [&](std::vector<std::int64_t> values) {
    const std::size_t n = values.size();
    for (std::size_t i = 0; i < n; ++i) values.push_back(-values[i]);
    link.all_reduce(values.data(), static_cast<int>(values.size()), scalar_type::int64, access::min);
    std::vector<bool> alike(n);
    for (std::size_t i = 0; i < n; ++i) alike[i] = values[i] == -values[n + i];
    return alike;
  };
  const std::string who = fmt::format("{}\n{}", loop, set.name());
  // Non-negative, so that it negates.
  const auto identity = static_cast<std::int64_t>(std::hash<std::string>{}(who) >> 2);
  const std::vector<bool> same_loop = spread({identity, static_cast<std::int64_t>(sizeof...(Args))});
  if (!same_loop[0] || !same_loop[1]) {
    throw argument_error(fmt::format("par_loop '{}' over '{}' (rank {} of {}): the ranks are not all running this loop "
                                     "here (PARLOOP_MPI_CHECK): every rank must make the same parloop calls in the "
                                     "same order",
                                     loop, set.name(), link.rank(), link.ranks()));
  }
  const std::vector<bool> alike = spread({static_cast<std::int64_t>(needs_halo(args, runs_exec_halo))...});
  // Each such dat once, however many of the loop's arguments it is.
  std::vector<const void*> named;
  std::string stale_somewhere;
  std::size_t i = 0;
  const auto name = [&](const auto& a) {
    if (alike[i++] || std::find(named.begin(), named.end(), a.data) != named.end()) return;
    named.push_back(a.data);
    stale_somewhere += fmt::format("{}'{}'", stale_somewhere.empty() ? "" : ", ", a.data->name);
  };
  (name(args), ...);
  if (!stale_somewhere.empty()) {
    throw argument_error(fmt::format("par_loop '{}' over '{}': the halo of {} is stale on some ranks only "
                                     "(PARLOOP_MPI_CHECK): a dat's values were changed on some ranks and not on "
                                     "others; every rank must make the same parloop calls, host views of "
                                     "distributed dats included",
                                     loop, set.name(), stale_somewhere));
  }
}

template <class K, class... Args>
void run_distributed(const K& k, const Set& set, const loop_choice& how, range r, const set_distribution& d,
                     const Args&... args) {
  // Refused alike on every rank, whatever each holds: no rank goes on to wait for the others.
  if (how.ranged) {
    throw argument_error(fmt::format("par_loop '{}': set '{}' is distributed over ranks, and a loop over it runs "
                                     "every element each rank owns (set.owned() here, in local numbers); it takes no "
                                     "range ([{}, {}) given)",
                                     k.name(), set.name(), r.start, r.end));
  }
  constexpr bool runs_exec_halo = (writes_through_map<Args> || ...);
  constexpr bool sums = (is_sum<Args> || ...);
  const index_t end = runs_exec_halo ? d.exec_end : d.owned_end;
  // What could be refused is refused before anything changes (a sum zeroed, a halo sent): the
  // checks, and the trace -- which every rank makes, so a kernel the rules refuse is refused
  // everywhere. Only two elements sent to one target by an RW or WRITE through a map are seen
  // by one rank alone (the target's owner): the ranks agree on that check.
  bool checked = true;
  std::string refusal;
  try {
    const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
    check_loop(k.name(), set, range{0, end}, views);
  } catch (const argument_error& e) {
    if constexpr (!(writes_one_at_a_time<Args> || ...)) throw;
    checked = false;
    refusal = e.message();
  }
  if constexpr ((writes_one_at_a_time<Args> || ...)) {
    if (!d.link->all(checked)) {
      throw argument_error(!checked ? refusal
                                    : fmt::format("par_loop '{}' over '{}': refused on another rank (its error says "
                                                  "why)",
                                                  k.name(), set.name()));
    }
  }
  kernel_ir(k, args...);
  if (set.runtime().checks_traces()) check_trace(k, args...);
  if constexpr (sums && runs_exec_halo) kernel_ir(k, over_exec_halo(args)...);
  if (d.link->checks_calls) check_same_calls(k.name(), set, d, runs_exec_halo, args...);
  // An autotuned loop launches as rank 0 chose (timed there before any value changes), so that
  // every rank runs alike; its kernels are then agreed on as any loop's.
  loop_choice launch_how = how;
  if (how.tune && set.runtime().kind() != backend_kind::host) {
    const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
    launch_how = {autotuned_over(*d.link, d.global_size, *set.runtime().state()->backend, k.cache(),
                                 k.entry(args...), how.named, range{0, end}, views),
                  false, false};
  }
  (start_sum(args, d.link->rank()), ...);

  // Every halo packed before any is read back: one wait for the queue, however many dats.
  std::array<bool, sizeof...(Args)> packed{};
  std::array<std::unique_ptr<halo_transfer>, sizeof...(Args)> transfers;
  {
    std::size_t i = 0;
    ((packed[i++] = pack_if_needed(args, d, runs_exec_halo)), ...);
    i = 0;
    ((transfers[i] = send_if_packed(args, d, packed[i]), ++i), ...);
  }
  bool waiting = false;
  for (const auto& t : transfers) waiting = waiting || t != nullptr;
  // Sums stop at the owned elements; the exec halo's part is dropped.
  const index_t owned_part_end = sums ? std::min(end, d.owned_end) : end;
  // Without a halo to wait for, the owned part at once; else the core first. Each part runs on
  // every rank, empty or not, so that every rank asks for the loop's kernels at the same calls:
  // they are agreed on over the link (one rank compiles).
  const index_t first = waiting ? d.core_end : owned_part_end;
  const auto part = [&](range r, const auto&... part_args) {
    const agreeing_on agreed(d.link.get());
    run_range(k, set, launch_how, r, part_args...);
  };
  part(range{0, first}, args...);
  if (waiting) {
    std::size_t i = 0;
    (finish_if_started(args, transfers[i++]), ...);
  }
  part(range{first, owned_part_end}, args...);
  if constexpr (sums && runs_exec_halo) part(range{owned_part_end, end}, over_exec_halo(args)...);
  (after_loop(args), ...);
  (finish_reduction(args, *d.link), ...);
}

}  // namespace parloop::detail
