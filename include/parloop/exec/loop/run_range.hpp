// SPDX-License-Identifier: MIT
// One launch of a checked loop over one range of its set, on the runtime's backend: the host
// and threads backends run the kernel's own callbacks, a device the compiled kernel (threads and
// devices autotuned where asked). A distributed loop makes several, one per region. Plain code:
// loop_call_impl.hpp includes it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "parloop/core/backend_kind.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/thread_team.hpp"
#include "parloop/core/trace_checks.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_run.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/exec/loop/traffic.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

// On the calls Runtime::trace_checks picks: the lambda traced again must give the IR kept for
// these arguments, which every device runs. A value captured by reference that changed since
// would otherwise give the new value on the host (which runs the lambda) and the old one on a
// device. Every rank of a distributed loop counts the same calls, so all refuse the same one.
inline void check_trace(const loop_call& call, signature_entry& entry) {
  if (!call.callbacks.traced) return;
  const trace_checks when = call.set.runtime().trace_checks();
  // A load and a store, not an atomic increment, which would cost a warm host launch a few
  // percent: loops of one kernel running at once on several threads may count a call once,
  // which moves the sampled checks, not what a check finds.
  const std::uint64_t n = entry.calls.load(std::memory_order_relaxed);
  entry.calls.store(n + 1, std::memory_order_relaxed);
  if (!trace_checked(when, n)) return;
  ir::kernel again = call.callbacks.make_ir(entry.params);
  again.extrusion = entry.over;
  if (again == *entry.ir) return;
  const std::string since =
      when == trace_checks::sampled && n >= trace_checks_first
          ? parloop::detail::format(
                " Checked at call {} of these arguments, {} calls after the last check: devices may have run the "
                "old value in between (PARLOOP_CHECK_TRACES=1 checks every call).",
                n + 1, trace_checks_every)
          : "";
  throw argument_error(parloop::detail::format(
      "par_loop '{}': the kernel traces differently than at its first loop with these arguments: a value it "
      "captured by reference (or a global variable it reads) changed, and devices run the first trace. Capture "
      "the value by copy in a new pl::kernel, or pass it as a pl::Global argument (PARLOOP_CHECK_TRACES).{}",
      call.kernel, since));
}

// Runs the call's kernel, whose signature is `entry`, over r (which the checks have accepted)
// as `how` says.
inline void run_range(const loop_call& call, signature_entry& entry, const loop_choice& how, range r) {
  const Runtime& rt = call.set.runtime();
  runtime_state& state = *rt.state();
  const auto run = [&] {
    switch (rt.kind()) {
      case backend_kind::host: {
        const host_callbacks& h = call.callbacks.host;
        h.prepare();
        h.run(r, nullptr);
        break;
      }
      case backend_kind::threads: state.threads->run(call, entry, how, r); break;
      default: run_on_device(*state.backend, call.kernels, entry, how.named, how.tune, r, call.views, call.subset);
    }
  };
  if (!stats_enabled()) {
    run();
    return;
  }
  // A call's time is to its end on the device: timed calls do not overlap.
  const auto start = std::chrono::steady_clock::now();
  run();
  if (state.backend != nullptr) wait_for(*state.backend);
  call.kernels.count_run(nanoseconds_since(start), declared_bytes(r, call.views, call.extrusion));
}

}  // namespace parloop::detail
