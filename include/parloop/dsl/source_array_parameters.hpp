// SPDX-License-Identifier: MIT
// Array parameters written as the pointers C makes them: `double q[4]` becomes `double *q`, and
// `double *x[2]` becomes `double **x`, in every function a kernel's C source defines. C reads the
// two forms as one type, but NVIDIA's OpenCL compiler gives an array parameter's pointer the
// private address space, where a kernel's data arrive through generic pointers ("changes address
// space of pointer", and "conflicting types" against the prototype parloop declares).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parloop/dsl/source_functions.hpp"

namespace parloop::detail {

// The edits for one parameter, code[from, to): the one bracket pair after its name removed and a
// `*` put before the name. A parameter of two bracket pairs (a pointer to arrays) or without a
// name is left as written.
inline void pointer_parameter(std::string_view code, std::size_t from, std::size_t to,
                              std::vector<std::pair<std::size_t, std::pair<std::size_t, std::string>>>& edits) {
  const std::size_t open = code.find('[', from);
  if (open == std::string_view::npos || open >= to) return;
  const std::size_t close = code.find(']', open);
  if (close == std::string_view::npos || close >= to) return;
  for (std::size_t i = close + 1; i < to; ++i) {
    if (std::isspace(static_cast<unsigned char>(code[i])) == 0) return;
  }
  std::size_t name_end = open;
  while (name_end > from && std::isspace(static_cast<unsigned char>(code[name_end - 1])) != 0) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > from && is_name_char(code[name_begin - 1])) --name_begin;
  if (name_begin == name_end || std::isdigit(static_cast<unsigned char>(code[name_begin])) != 0) return;
  edits.push_back({open, {close + 1 - open, ""}});
  edits.push_back({name_begin, {0, "*"}});
}

inline std::string with_pointer_parameters(std::string_view text) {
  if (text.find('[') == std::string_view::npos) return std::string(text);
  std::vector<source_definition> defines;
  const std::string code = code_only(text, defines);
  std::vector<std::pair<std::size_t, std::pair<std::size_t, std::string>>> edits;
  for (const source_definition& f : function_definitions(code)) {
    int depth = 0;
    std::size_t param = f.open + 1;
    for (std::size_t i = f.open + 1; i <= f.close; ++i) {
      const char c = code[i];
      if (i == f.close || (c == ',' && depth == 0)) {
        pointer_parameter(code, param, i, edits);
        param = i + 1;
      } else if (c == '(' || c == '[') {
        ++depth;
      } else if (c == ')' || c == ']') {
        --depth;
      }
    }
  }
  std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out(text);
  for (const auto& [where, change] : edits) out.replace(where, change.first, change.second);
  return out;
}

}  // namespace parloop::detail
