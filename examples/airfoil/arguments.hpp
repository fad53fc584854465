// SPDX-License-Identifier: MIT
// Reading Airfoil's command-line numbers (the example's and its benchmark's).
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

namespace airfoil {

// `text` as a whole number in [least, most], or an error naming the option.
inline long long whole_number(std::string_view option, const char* text, long long least, long long most) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < least || v > most) {
    throw parloop::argument_error(
        fmt::format("{} {}: expected a whole number from {} to {}", option, text, least, most));
  }
  return v;
}

}  // namespace airfoil
