// SPDX-License-Identifier: MIT
// parloop's 0/1 switches in the environment, read alike: unset or empty is the default, and
// any other value is an error that names the variable and says what each value does.
#pragma once

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "parloop/error.hpp"

namespace parloop::detail {

inline bool switch_from_environment(const char* name, bool by_default, std::string_view what_1,
                                    std::string_view what_0) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return by_default;
  if (std::string_view(v) == "1") return true;
  if (std::string_view(v) == "0") return false;
  // The default's meaning first, as the documentation lists them.
  if (by_default) throw argument_error(fmt::format("{} is '{}': use 1 ({}, the default) or 0 ({})", name, v, what_1, what_0));
  throw argument_error(fmt::format("{} is '{}': use 0 ({}, the default) or 1 ({})", name, v, what_0, what_1));
}

}  // namespace parloop::detail
