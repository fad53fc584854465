// SPDX-License-Identifier: MIT
// The definitions of exec/device/device_run.hpp's functions: where a loop's types, already erased, meet
// the pipeline.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/autotune.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/device/device_launch.hpp"
#include "parloop/exec/device/device_run.hpp"
#include "parloop/exec/device/launch_choice.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/log.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

PARLOOP_FUNC void run_on_device(device_backend& device, kernel_cache& kernels, signature_entry& entry,
                                const loop_launch& named, bool tune, range r, std::span<const arg_view> views,
                                subset_state* over) {
  const loop_launch launch = tune && over == nullptr ? autotuned(device, kernels, entry, named, r, views) : named;
  launch_on_device(device, kernels, entry, launch, r, views, over);
}

PARLOOP_FUNC loop_launch autotuned_over(rank_link& link, index_t global_size, device_backend& device,
                                        kernel_cache& kernels, signature_entry& entry, const loop_launch& fallback,
                                        range r, std::span<const arg_view> views) {
  return kernels.tuned(entry, device.id(), tuning_key{link.id, size_class(global_size)}, [&] {
    std::string bytes;
    if (link.rank() == 0) {
      try {
        loop_launch chosen = fallback;
        if (r.end > r.start) {
          const loop_launch* known = kernels.find_tuned(entry, device.id(), tuning_key{0, size_class(r.end - r.start)});
          chosen = known != nullptr ? *known : choose_launch(device, kernels, entry, r, views);
        }
        const std::vector<unsigned char> b = choice_bytes(chosen);
        bytes.assign(b.begin(), b.end());
      } catch (...) {
        // The others hear of it (no choice) rather than wait for one.
        std::string none;
        link.broadcast(none, 0);
        throw;
      }
    }
    link.broadcast(bytes, 0);
    const std::optional<loop_launch> chosen =
        bytes.empty() ? std::nullopt : choice_from_bytes(std::vector<unsigned char>(bytes.begin(), bytes.end()));
    if (!chosen) {
      throw error(parloop::detail::format("autotuning '{}': rank 0 could not choose a launch (its error says why)",
                                          entry.ir->name));
    }
    if (log_info() && link.rank() != 0) {
      log_line("autotuning '{}': {} {}, as rank 0 chose", entry.ir->name, to_string(chosen->launch),
               to_string(chosen->writes));
    }
    return *chosen;
  });
}

PARLOOP_FUNC void wait_for(device_backend& device) { device.synchronize(); }

}  // namespace parloop::detail
