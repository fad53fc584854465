// SPDX-License-Identifier: MIT
// A par_loop over a set distributed over ranks, as OP2 runs one: the halos the loop reads start
// arriving, the core (elements that reach no halo) runs meanwhile, then the rest once they are
// in. A loop that writes through a map runs the exec halo too, redundantly, so that what its
// owned targets receive is complete without sending increments back. Reductions count owned
// elements only and end in an all-reduce over the ranks. Plain code over the arguments' views, which
// a program of the mpi component gets through entry.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_run.hpp"
#include "parloop/exec/distributed/halo.hpp"
#include "parloop/exec/loop/check.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/exec/loop/run_range.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

inline bool writes_through_map(const arg_view& a) { return through_map(a.kind) && is_modified(a.mode); }
inline bool reads_dat(const arg_view& a) {
  return a.kind != arg_kind::global && (a.mode == access::read || a.mode == access::rw);
}
inline bool is_sum(const arg_view& a) { return a.kind == arg_kind::global && a.mode == access::inc; }
inline bool reduces(const arg_view& a) { return a.kind == arg_kind::global && a.mode != access::read; }

// Whether the loop needs a's halo: read through a map, or read directly where the loop runs the
// exec halo of its set.
inline bool needs_halo(const arg_view& a, bool runs_exec_halo) {
  return reads_dat(a) && !a.owner->halo_current && (a.kind != arg_kind::direct || runs_exec_halo);
}

// The dat's own set says who exchanges it (the loop's set, or the target of its map).
inline const set_distribution& exchanged_by(const arg_view& a, const set_distribution& loop_set) {
  return a.kind == arg_kind::direct ? loop_set : *a.owner->set->distribution();
}

// Packs a's exports where the loop needs its halo; the halo counts as current from here on (a
// second argument of the same dat packs nothing). Whether there is anything to send.
inline bool pack_if_needed(const arg_view& a, const set_distribution& loop_set, bool runs_exec_halo) {
  if (!needs_halo(a, runs_exec_halo)) return false;
  const set_distribution& d = exchanged_by(a, loop_set);
  // A rank that neither sends nor receives any of the set (one rank alone, or a share apart) has
  // no messages that others wait for: nothing to pack or wait for.
  const bool messages = !d.exports.empty() || !d.imports.empty();
  if (messages) pack_exports(a, d);
  a.owner->halo_current = true;
  return messages;
}

// The values of a's host copy, current.
inline std::span<std::byte> host_values(const arg_view& a) {
  a.data->ensure_host(a.owner->device());
  return {a.data->host_bytes(), a.data->bytes()};
}

// A global that sums: only the first rank brings the value it holds into the sum, the others
// add to zero (all bits zero, in every scalar type).
inline void start_sum(const arg_view& a, int rank) {
  if (!is_sum(a) || rank == 0) return;
  a.data->host_overwritten();
  std::memset(a.data->host_bytes(), 0, a.data->bytes());
}

// The values the globals that `which` picks among a loop's arguments hold now, to be put back.
class kept_globals {
 public:
  kept_globals(std::span<const arg_view> args, bool (*which)(const arg_view&)) : args_(args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!which(args[i])) continue;
      const std::span<std::byte> values = host_values(args[i]);
      values_[i].assign(values.begin(), values.end());
    }
  }
  void put_back() const noexcept {
    for (std::size_t i = 0; i < args_.size(); ++i) {
      if (values_[i].empty()) continue;
      args_[i].data->host_overwritten();
      std::memcpy(args_[i].data->host_bytes(), values_[i].data(), values_[i].size());
    }
  }

 private:
  std::span<const arg_view> args_;
  std::array<std::vector<std::byte>, max_loop_args> values_;
};

// Puts kept values back where the scope is left by an exception.
class put_back_on_throw {
 public:
  explicit put_back_on_throw(const kept_globals& kept) : kept_(kept) {}
  put_back_on_throw(const put_back_on_throw&) = delete;
  put_back_on_throw& operator=(const put_back_on_throw&) = delete;
  ~put_back_on_throw() {
    if (std::uncaught_exceptions() > exceptions_) kept_.put_back();
  }

 private:
  const kept_globals& kept_;
  int exceptions_ = std::uncaught_exceptions();
};

inline void finish_reduction(const arg_view& a, rank_link& link) {
  if (!reduces(a)) return;
  link.all_reduce(host_values(a).data(), a.dim, a.type, a.mode);
  a.data->host_overwritten();
}

// PARLOOP_MPI_CHECK: every rank runs this loop here, and all agree on which of its halos are
// stale. Each value goes into one minimum both as itself and negated, so one all-reduce gives the
// smallest and the largest over the ranks: alike where they are equal.
inline void check_same_calls(std::string_view loop, const Set& set, const set_distribution& d, bool runs_exec_halo,
                             std::span<const arg_view> args) {
  rank_link& link = *d.link;
  const auto spread = [&](std::vector<std::int64_t> values) {
    const std::size_t n = values.size();
    for (std::size_t i = 0; i < n; ++i) values.push_back(-values[i]);
    link.all_reduce(values.data(), static_cast<int>(values.size()), scalar_type::int64, access::min);
    std::vector<bool> alike(n);
    for (std::size_t i = 0; i < n; ++i) alike[i] = values[i] == -values[n + i];
    return alike;
  };
  const std::string who = parloop::detail::format("{}\n{}", loop, set.name());
  // Non-negative, so that it negates.
  const auto identity = static_cast<std::int64_t>(std::hash<std::string>{}(who) >> 2);
  const std::vector<bool> same_loop = spread({identity, static_cast<std::int64_t>(args.size())});
  if (!same_loop[0] || !same_loop[1]) {
    throw argument_error(
        parloop::detail::format("par_loop '{}' over '{}' (rank {} of {}): the ranks are not all running this loop "
                                "here (PARLOOP_MPI_CHECK): every rank must make the same parloop calls in the "
                                "same order",
                                loop, set.name(), link.rank(), link.ranks()));
  }
  std::vector<std::int64_t> stale;
  for (const arg_view& a : args) stale.push_back(needs_halo(a, runs_exec_halo) ? 1 : 0);
  const std::vector<bool> alike = spread(std::move(stale));
  // Each such dat once, however many of the loop's arguments it is.
  std::vector<const void*> named;
  std::string stale_somewhere;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (alike[i] || std::find(named.begin(), named.end(), args[i].owner) != named.end()) continue;
    named.push_back(args[i].owner);
    stale_somewhere += parloop::detail::format("{}'{}'", stale_somewhere.empty() ? "" : ", ", args[i].owner->name);
  }
  if (!stale_somewhere.empty()) {
    throw argument_error(
        parloop::detail::format("par_loop '{}' over '{}': the halo of {} is stale on some ranks only "
                                "(PARLOOP_MPI_CHECK): a dat's values were changed on some ranks and not on "
                                "others; every rank must make the same parloop calls, host views of "
                                "distributed dats included",
                                loop, set.name(), stale_somewhere));
  }
}

inline void run_distributed(const loop_call& call, const set_distribution& d) {
  const std::string& name = call.kernel;
  const Set& set = call.set;
  const std::span<const arg_view> args = call.views;
  // Refused alike on every rank, whatever each holds: no rank goes on to wait for the others.
  if (call.how.ranged) {
    throw argument_error(
        parloop::detail::format("par_loop '{}': set '{}' is distributed over ranks, and a loop over it runs "
                                "every element each rank owns (set.owned() here, in local numbers); it takes no "
                                "range ([{}, {}) given)",
                                name, set.name(), call.r.start, call.r.end));
  }
  const auto any = [&](bool (*is)(const arg_view&)) { return std::any_of(args.begin(), args.end(), is); };
  const bool runs_exec_halo = any(writes_through_map);
  const bool sums = any(is_sum);
  const bool one_at_a_time = any(writes_one_at_a_time);
  // Over a subset the parts below are positions in its elements: ascending, so each region of
  // the set (a range of local elements) is a range of positions, found by its end.
  const subset_state* over = call.subset;
  const auto position_of = [&](index_t region_end) {
    if (over == nullptr) return region_end;
    return static_cast<index_t>(std::lower_bound(over->elements.begin(), over->elements.end(), region_end) -
                                over->elements.begin());
  };
  const index_t end = position_of(runs_exec_halo ? d.exec_end : d.owned_end);
  // What could be refused is refused before anything changes (a sum zeroed, a halo sent): the
  // checks, and the trace -- which every rank makes, so a kernel the rules refuse is refused
  // everywhere. Only two elements sent to one target by an RW or WRITE through a map are seen
  // by one rank alone (the target's owner): the ranks agree on that check.
  bool checked = true;
  std::string refusal;
  try {
    check_loop(name, set, range{0, end}, args, over);
    // Run one at a time, elements meeting at a target would still run on two ranks at once.
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!writes_one_at_a_time(args[i])) continue;
      check_distinct_targets(
          parloop::detail::format("par_loop '{}' over '{}', argument {} (over MPI ranks)", name, set.name(), i),
          over != nullptr ? loop_rows{0, end, over->elements, over->id} : loop_rows{0, end}, args[i]);
    }
  } catch (const argument_error& e) {
    if (!one_at_a_time) throw;
    checked = false;
    refusal = e.message();
  }
  if (one_at_a_time && !d.link->all(checked)) {
    throw argument_error(
        !checked ? refusal
                 : parloop::detail::format("par_loop '{}' over '{}': refused on another rank (its error says why)",
                                           name, set.name()));
  }
  signature_entry& entry = entry_of(call.kernels, name, args, call.callbacks.make_ir, &set);
  check_trace(call, entry);
  if (set.runtime().settings().mpi_check) check_same_calls(name, set, d, runs_exec_halo, args);
  // An autotuned loop launches as rank 0 chose (timed there before any value changes), so that
  // every rank runs alike; its kernels are then agreed on as any loop's. Over a subset, the named
  // launch, as on one process.
  loop_choice launch_how = loop_choice_of(call);
  if (launch_how.tune && !runs_lambdas(set.runtime().kind())) {
    launch_how = {autotuned_over(*d.link, d.global_size, *set.runtime().state()->backend, call.kernels, entry,
                                 call.how.named, range{0, end}, args),
                  false, false};
  }
  // A loop that throws leaves the globals it reduces into as they were, on every rank: not a sum
  // started from zero, nor one half combined.
  const kept_globals before(args, reduces);
  const put_back_on_throw keep_if_thrown(before);
  for (const arg_view& a : args) start_sum(a, d.link->rank());

  // Every halo packed before any is read back: one wait for the queue, however many dats.
  std::array<bool, max_loop_args> packed{};
  std::array<std::unique_ptr<halo_transfer>, max_loop_args> transfers;
  for (std::size_t i = 0; i < args.size(); ++i) packed[i] = pack_if_needed(args[i], d, runs_exec_halo);
  bool waiting = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (packed[i]) transfers[i] = send_exports(args[i], exchanged_by(args[i], d));
    waiting = waiting || packed[i];
  }
  // Sums stop at the owned elements; what the exec halo adds is dropped.
  const index_t owned_part_end = sums ? std::min(end, position_of(d.owned_end)) : end;
  // Without a halo to wait for, the owned part at once; else the core first. Each part runs on
  // every rank, empty or not, so that every rank asks for the loop's kernels at the same calls:
  // they are agreed on over the link (one rank compiles).
  const index_t first = waiting ? position_of(d.core_end) : owned_part_end;
  const auto part = [&](range r) {
    const agreeing_on agreed(d.link.get());
    run_range(call, entry, launch_how, r);
  };
  part(range{0, first});
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (transfers[i]) finish_exchange(args[i], *transfers[i]);
  }
  part(range{first, owned_part_end});
  if (sums && runs_exec_halo) {
    // The exec halo's elements are counted by the ranks that own them: the sums' values before
    // them are kept and put back.
    const kept_globals owned_sums(args, is_sum);
    part(range{owned_part_end, end});
    owned_sums.put_back();
  }
  for (const arg_view& a : args) {
    if (a.kind != arg_kind::global && a.mode != access::read) a.owner->halo_current = false;
  }
  for (const arg_view& a : args) finish_reduction(a, *d.link);
}

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/exec/loop/loop_call_impl.hpp"
#endif
