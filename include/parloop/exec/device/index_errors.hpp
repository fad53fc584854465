// SPDX-License-Identifier: MIT
// The device side of the index checks: generated code that computes a component or slot index
// checks it against its bound and records the first violation in one small device buffer (see
// ir/layout.hpp for its fields). Loops never wait for it; the next time the host waits
// for the device (it reads a dat or a global), the record comes back in the same wait and is
// thrown, then cleared, as the host backend would have thrown it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/layout.hpp"

namespace parloop::exec {

class index_errors {
 public:
  // The record, for a launch of a kernel that checks; until the next check, the host must look.
  detail::device_buffer& record(detail::device_memory& memory) {
    if (!buffer_) {
      buffer_ = memory.allocate(sizeof(fields));
      clear(memory);
    }
    armed_ = true;
    return *buffer_;
  }

  // Names the kernel a tag stands for in the record; called where a checking kernel is built.
  void name(std::string_view kernel) {
    std::lock_guard lock(names_mutex_);
    names_.try_emplace(ir::kernel_tag(kernel), kernel);
  }

  // Before a download the host waits for: enqueues a copy of the record, if a kernel that
  // checks ran since the last one, so that the download's wait brings it back too.
  void fetch(detail::device_memory& memory) {
    if (!armed_) return;
    armed_ = false;
    fetched_ = true;
    memory.download_later(*buffer_, seen_.data(), sizeof seen_);
  }

  // After that download: throws the first violation the record holds, and clears it.
  void report(detail::device_memory& memory) {
    if (!fetched_) return;
    fetched_ = false;
    const fields f = seen_;
    if (f[ir::error_site] == 0) return;
    clear(memory);
    const int site = f[ir::error_site];
    const std::int64_t index = static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(f[ir::error_index_high])) << 32) |
        static_cast<std::uint32_t>(f[ir::error_index_low]));
    std::string kernel = "?";
    {
      std::lock_guard lock(names_mutex_);
      if (const auto it = names_.find(f[ir::error_kernel]); it != names_.end()) kernel = it->second;
    }
    throw trace_error(parloop::detail::format(
        "kernel '{}': argument {} has {} {}; index {} is out of range (a computed index, "
        "found on the device; PARLOOP_CHECK_INDICES=0 turns the check off)",
        kernel, ir::site_param(site), f[ir::error_bound], ir::site_is_slot(site) ? "map slots" : "components", index));
  }

 private:
  using fields = std::array<std::int32_t, ir::error_fields>;

  void clear(detail::device_memory& memory) {
    const fields zero{};
    memory.upload(*buffer_, zero.data(), sizeof zero);
  }

  std::unique_ptr<detail::device_buffer> buffer_;
  bool armed_ = false;    // a kernel that checks ran since the record was last fetched
  bool fetched_ = false;  // a copy of the record is on its way into seen_
  fields seen_{};
  std::mutex names_mutex_;
  std::unordered_map<std::int32_t, std::string> names_;
};

}  // namespace parloop::exec
