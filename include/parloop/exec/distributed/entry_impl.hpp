// SPDX-License-Identifier: MIT
// The distributed loops' entry (entry.hpp): the loop and the ranks' agreement.
#pragma once

#include <memory>
#include <string>

#include "parloop/config.hpp"
#include "parloop/exec/distributed/agreement.hpp"
#include "parloop/exec/distributed/distributed_loop.hpp"
#include "parloop/exec/distributed/entry.hpp"

namespace parloop::detail {

PARLOOP_FUNC const distributed_entry* distributed_loops_definitions() {
  static constexpr distributed_entry entry{&run_distributed, &agree};
  return &entry;
}

}  // namespace parloop::detail
