// SPDX-License-Identifier: MIT
// PARLOOP_LOG=info: one line on standard error for each kernel compiled (and one before, so that
// a long compile shows what it is doing) and each kernel loaded from the disk cache.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "parloop/error.hpp"

namespace parloop::cache {

// Whether PARLOOP_LOG asks for these lines: info does, off or unset does not, anything else is
// an error naming the variable. Read at each compile or load, never on a launch.
inline bool log_info() {
  const char* v = std::getenv("PARLOOP_LOG");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "off") return false;
  if (std::string_view(v) == "info") return true;
  throw argument_error(fmt::format("PARLOOP_LOG='{}': expected info or off", v));
}

template <class... Args>
void log(fmt::format_string<Args...> format, Args&&... args) {
  const std::string line = "parloop: " + fmt::format(format, std::forward<Args>(args)...) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace parloop::cache
