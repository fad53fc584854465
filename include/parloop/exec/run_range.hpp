// SPDX-License-Identifier: MIT
// One launch of a checked loop over one range of its set, on the runtime's backend: the host
// runs the lambda, a device the compiled kernel (autotuned where asked). A distributed loop makes
// several, one per region.
#pragma once

#include <array>
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "parloop/cache/stats.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device_run.hpp"
#include "parloop/exec/host_launch.hpp"
#include "parloop/exec/kernel.hpp"
#include "parloop/exec/source_kernel.hpp"
#include "parloop/exec/traffic.hpp"

namespace parloop::detail {

// How a call launches: the strategy and conflicts it names (or the runtime's defaults), and
// whether its launch is autotuned instead.
struct loop_choice {
  loop_launch named;
  bool tune = false;
  // Whether the call names a range (a loop over a distributed set takes none).
  bool ranged = false;
};

template <class F, class... Args>
std::shared_ptr<const ir::kernel> kernel_ir(const Kernel<F>& k, const Args&... args) {
  return k.traced(args...);
}
template <class... Args>
std::shared_ptr<const ir::kernel> kernel_ir(const SourceKernel& k, const Args&... args) {
  return k.ir(args...);
}

// Under Runtime::checks_traces: the lambda traced again must give the IR kept for these
// arguments, which every device runs. A value captured by reference that changed since would
// otherwise give the new value on the host (which runs the lambda) and the old one on a device.
template <class F, class... Args>
void check_trace(const Kernel<F>& k, const Args&... args) {
  const std::shared_ptr<const ir::kernel> kept = k.traced(args...);
  if (dsl::trace(k.name(), k.function(), args...) == *kept) return;
  throw argument_error(fmt::format(
      "par_loop '{}': the kernel traces differently than at its first loop with these arguments: a value it "
      "captured by reference (or a global variable it reads) changed, and devices run the first trace. Capture "
      "the value by copy in a new pl::kernel, or pass it as a pl::Global argument (PARLOOP_CHECK_TRACES)",
      k.name()));
}
// A kernel from source captures nothing.
template <class... Args>
void check_trace(const SourceKernel&, const Args&...) {}

template <class F, class... Args>
void run_on_host(const Kernel<F>& k, range r, const Args&... args) {
  // What the lambda throws while it runs (a computed index out of range) names the kernel, as
  // a device's report of it does.
  try {
    launch_on_host(k.function(), r, args...);
  } catch (const trace_error& e) {
    throw trace_error(fmt::format("kernel '{}': {}", k.name(), e.message()));
  }
}
template <class... Args>
void run_on_host(const SourceKernel& k, range, const Args&...) {
  throw backend_unavailable("kernel '" + k.name() +
                            "' is C source: it needs a device backend (PARLOOP_BACKEND=opencl or cuda); the host "
                            "backend runs pl::kernel lambdas");
}

// Runs k over r, which check_loop has accepted; par_loop counts the call.
template <class K, class... Args>
void run_range(const K& k, const Set& set, const loop_choice& how, range r, const Args&... args) {
  const Runtime& rt = set.runtime();
  // The arguments' types end here: what is below takes their views.
  const std::array<arg_view, sizeof...(Args)> views{view_of(args)...};
  const auto run = [&] {
    if (rt.kind() == backend_kind::host) {
      // Tracing checks the rules only a trace can see, so the host refuses what a device would.
      kernel_ir(k, args...);
      run_on_host(k, r, args...);
    } else {
      run_on_device(*rt.state()->backend, k.cache(), k.entry(args...), how.named, how.tune, r, views);
    }
  };
  if (!stats_enabled()) {
    run();
    return;
  }
  // A call's time is to its end on the device: timed calls do not overlap.
  const auto start = std::chrono::steady_clock::now();
  run();
  if (rt.kind() != backend_kind::host) wait_for(*rt.state()->backend);
  k.cache().count_run(nanoseconds_since(start), declared_bytes(r, views));
}

}  // namespace parloop::detail
