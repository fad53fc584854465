// SPDX-License-Identifier: MIT
// PARLOOP_LOG=info: one line on standard error for each kernel compiled (and one before, so that
// a long compile shows what it is doing) and each kernel loaded from the disk cache.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "parloop/config.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// Whether PARLOOP_LOG=info asks for these lines (settings::log, as the runtime opened last said).
// Read at each compile or load, never on a launch.
inline bool log_info() { return process_settings().log.load(std::memory_order_relaxed); }

template <class... Args>
void log_line(format_string<Args...> format, const Args&... args) {
  const std::string line = "parloop: " + parloop::detail::format<Args...>(format, args...) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace parloop::detail

PARLOOP_COLD_END
