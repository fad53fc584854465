// SPDX-License-Identifier: MIT
// Whether a name is a C identifier: what kernel names, the names generated code declares and OP2's
// constants must be.
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace parloop::detail {

inline bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace parloop::detail
