// SPDX-License-Identifier: MIT
// A par_loop call with its types erased: par_loop's templates check what the compiler can,
// then hand this down. Everything below it -- the checks, the kernel's signature, tracing and
// cache, the launch on any backend, distributed loops and their halos -- is plain code over the
// arguments' views, defined in loop_call_impl.hpp: compiled once into the library under
// PARLOOP_COMPILED, else included by exec/kernel/kernel.hpp, which every caller includes (the code
// below includes this header for the types alone, so it includes no definitions).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "parloop/config.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// How a call launches: the strategy and conflicts it names (or the runtime's defaults), and
// whether its launch is autotuned instead.
struct loop_choice {
  loop_launch named;
  bool tune = false;
  // Whether the call names a range (a loop over a distributed set takes none).
  bool ranged = false;
};

// The kernel's lambda run on the host, by the host backend (one run over the range) or the
// threads backend (runs over parts of it at once, from several threads).
struct host_callbacks {
  // Makes the arguments' host copies current: once per loop, before any run, on the runtime's
  // thread. A kernel from C source refuses here.
  function_ref<void()> prepare;
  // Runs the elements of a range in order. With partials (a block's, partial_bytes of them),
  // the globals the loop modifies start from and end in them; without, in the globals.
  function_ref<void(range, std::byte*)> run;
  // The bytes of a block's partials: 0 where the loop modifies no global.
  std::size_t partial_bytes;
  // Sets a block's partials where combining them changes nothing (0 for INC, the global's
  // values for MIN and MAX); combines one block's into the globals.
  function_ref<void(std::byte*)> start_partials;
  function_ref<void(const std::byte*)> combine_partials;
};

// What only the kernel's own type can do, passed down as callbacks: a parameter's members, so
// they live as long as the par_loop call that made them.
struct kernel_callbacks {
  // The kernel's IR for these parameters: traced from the lambda, or made around C source.
  function_ref<ir::kernel(std::span<const ir::param>)> make_ir;
  host_callbacks host;
  // Whether make_ir traces a lambda, whose trace may change (Runtime::trace_checks).
  bool traced;
};

struct loop_call {
  const std::string& kernel;
  kernel_cache& kernels;
  const Set& set;
  loop_choice how;
  range r;
  std::span<const arg_view> views;
  kernel_callbacks callbacks;
  // A loop over a subset of `set`: r is positions in its elements (made current before the
  // call), which the host callbacks map to elements themselves. Null: r is elements of `set`.
  subset_state* subset = nullptr;
  // A loop over an extruded set (layers > 0): r is columns, each run over these layers.
  ir::extrusion extrusion = {};
  // A loop over a subset whose elements are r, one run of `set`'s: run as that range, named as
  // the subset in errors, and launched by a subset's rules (exec/loop/loop_call_impl.hpp).
  const subset_state* run_of = nullptr;
};

// How the call launches: as it names, but a loop over a subset, whatever its elements, is never
// timed (the choice would be kept for the whole set's loops), and one run as its range of the set
// is coloured where it combines through maps, as a listed subset is (exec/device/device_launch.hpp):
// its sums are then those of a list of the same elements, on every backend.
inline loop_choice loop_choice_of(const loop_call& call) {
  loop_choice how = call.how;
  if (call.subset != nullptr || call.run_of != nullptr) how.tune = false;
  if (call.run_of != nullptr) how.named.writes = conflicts::colors;
  return how;
}

// The entry of the kernel `name` in `kernels` for the signature of `views` (in a loop over
// extruded set `set`, `over` its layers): found, or made by make_ir once its aliasing is checked.
PARLOOP_FUNC signature_entry& entry_of(kernel_cache& kernels, const std::string& name, std::span<const arg_view> views,
                                       function_ref<ir::kernel(std::span<const ir::param>)> make_ir,
                                       const Set* set = nullptr, const ir::extrusion& over = {});

// Checks and runs the call on its set's runtime (over its ranks where the set is distributed),
// and counts it.
PARLOOP_FUNC void run_call(const loop_call& call);

}  // namespace parloop::detail
