// SPDX-License-Identifier: MIT
// Device scratch of global reductions, kept by each device backend between launches: one
// buffer of work-group partials per reduction of a launch, and the counter that tells the last
// group to finish. Launches on one queue run in order, so consecutive launches share them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "parloop/core/validity.hpp"

namespace parloop::exec {

class reduction_scratch {
 public:
  // The partials of the launch's reduction i, at least `bytes` long. Grown, never shrunk: after
  // the first launches of a program this allocates nothing. A replaced buffer may still be in use
  // by an enqueued launch; device memory outlives the work that uses it (OpenCL retains it).
  detail::device_buffer& partials(detail::device_memory& memory, std::size_t i, std::size_t bytes) {
    if (partials_.size() <= i) partials_.resize(i + 1);
    slot& s = partials_[i];
    if (!s.buffer || s.bytes < bytes) {
      s.buffer = memory.allocate(bytes);
      s.bytes = bytes;
    }
    return *s.buffer;
  }

  // How many groups of the running launch have stored their partials: zero between launches,
  // since the last group resets it.
  detail::device_buffer& groups_done(detail::device_memory& memory) {
    if (!groups_done_) {
      groups_done_ = memory.allocate(sizeof(std::int32_t));
      const std::int32_t zero = 0;
      memory.upload(*groups_done_, &zero, sizeof zero);
    }
    return *groups_done_;
  }

 private:
  struct slot {
    std::unique_ptr<detail::device_buffer> buffer;
    std::size_t bytes = 0;
  };
  std::vector<slot> partials_;
  std::unique_ptr<detail::device_buffer> groups_done_;
};

}  // namespace parloop::exec
