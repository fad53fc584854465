// SPDX-License-Identifier: MIT
// What a loop's templates call to run on a device, with the arguments' types already erased into
// their views: the pipeline below (autotuning, the kernel cache's builds and loads, colourings,
// the launch) is defined in device_run_impl.hpp, compiled once into the library under
// PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <span>

#include "parloop/config.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/kernel/kernel_entry.hpp"
#include "parloop/fwd.hpp"

namespace parloop::detail {

// Launches the signature `entry` of the kernel whose in-memory cache is `kernels` over r on
// `device`, with the arguments `views`: as `named` says, or, where `tune`, as autotuning chooses
// (exec/device/autotune.hpp). Over a subset (`over`), r is positions in its elements, and the launch
// is the named one: timing candidates over a subset would choose for the whole set's loops too,
// which share the kernel's tuned launches.
PARLOOP_FUNC void run_on_device(device_backend& device, kernel_cache& kernels, signature_entry& entry,
                                const loop_launch& named, bool tune, range r, std::span<const arg_view> views,
                                subset_state* over);

// The launch of a distributed loop over `link`, whose set has `global_size` elements, r being
// this rank's part: rank 0 chooses (as autotuned, over its own part) and every rank takes its
// choice, so that the ranks launch alike and sum in the same order. Kept per link and global size
// class; every rank asks at the same call (distributed loops are made by every rank in order).
PARLOOP_FUNC loop_launch autotuned_over(rank_link& link, index_t global_size, device_backend& device,
                                        kernel_cache& kernels, signature_entry& entry, const loop_launch& fallback,
                                        range r, std::span<const arg_view> views);

// Waits for everything enqueued on `device`; throws what its loops found wrong.
PARLOOP_FUNC void wait_for(device_backend& device);

}  // namespace parloop::detail

#if !PARLOOP_COMPILED
#include "parloop/exec/device/device_run_impl.hpp"
#endif
