// SPDX-License-Identifier: MIT
// The threads backend as a runtime holds it (backend/threads/backend.hpp defines it): the runtime
// places a dat's first touches with it and run_range hands it loops, neither knowing its pool.
#pragma once

#include "parloop/core/function_ref.hpp"
#include "parloop/core/range.hpp"
#include "parloop/fwd.hpp"

namespace parloop::detail {

class thread_team {
 public:
  virtual ~thread_team() = default;

  // The threads it runs a loop on, the calling thread's included.
  virtual int size() const = 0;

  // Calls fill(part) for the parts of [0, n) its threads run in a direct loop, each part on the
  // thread that runs it, so that the pages of a dat's values are first touched near that thread.
  virtual void touch(index_t n, function_ref<void(range)> fill) = 0;

  // Runs the loop `call`, whose kernel's entry is `entry`, over r (checked) as `how` says.
  virtual void run(const loop_call& call, signature_entry& entry, const loop_choice& how, range r) = 0;
};

}  // namespace parloop::detail
