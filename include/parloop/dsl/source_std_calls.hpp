// SPDX-License-Identifier: MIT
// C++'s std:: spelling of the C math functions in a kernel's C source (std::min, std::sqrt, ...),
// which OP2's applications write and their C++ host compilers accept, made what OpenCL C and CUDA
// both define, overloaded for the same types: OpenCL C has no namespaces, and NVRTC no <cmath> or
// <algorithm>. Other std:: names are left for the device compiler to refuse by name.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/dsl/source_functions.hpp"

namespace parloop::detail {

inline constexpr std::array<std::string_view, 43> device_math_names = {
    "acos", "acosh", "asin",  "asinh",    "atan",  "atan2", "atanh",  "cbrt", "ceil",  "copysign", "cos",
    "cosh", "erf",   "erfc",  "exp",      "exp2",  "expm1", "fabs",   "fdim", "floor", "fma",      "fmax",
    "fmin", "fmod",  "hypot", "isfinite", "isinf", "isnan", "lgamma", "log",  "log10", "log1p",    "log2",
    "max",  "min",   "pow",   "round",    "sin",   "sinh",  "sqrt",   "tan",  "tanh",  "trunc"};

// The positions of `std::` (spaces allowed around the ::) before a name of device_math_names in
// `code`, read from `from` to `to`.
inline void find_std_math(std::string_view code, std::size_t from, std::size_t to,
                          std::vector<std::pair<std::size_t, std::size_t>>& found) {
  for (std::size_t at = code.find("std", from); at != std::string_view::npos && at < to;
       at = code.find("std", at + 3)) {
    if (at > 0 && (is_name_char(code[at - 1]) || code[at - 1] == ':')) continue;
    std::size_t i = at + 3;
    while (i < to && (code[i] == ' ' || code[i] == '\t')) ++i;
    if (code.compare(i, 2, "::") != 0) continue;
    i += 2;
    while (i < to && (code[i] == ' ' || code[i] == '\t')) ++i;
    std::size_t end = i;
    while (end < to && is_name_char(code[end])) ++end;
    const std::string_view name = code.substr(i, end - i);
    if (std::find(device_math_names.begin(), device_math_names.end(), name) != device_math_names.end()) {
      found.emplace_back(at, i);
    }
  }
}

// std::min and std::max as the standard defines them (the first argument where neither is less),
// by macros of their own: a kernel may name a parameter `min` (OP2's min application does), which
// would hide the device's min() where the call is.
inline constexpr std::string_view std_min_max =
    "#ifndef PL_STD_MIN\n#define PL_STD_MIN(a, b) ((b) < (a) ? (b) : (a))\n"
    "#define PL_STD_MAX(a, b) ((a) < (b) ? (b) : (a))\n#endif\n";

// `text` with those `std::` qualifiers taken out, in code and in #define bodies (not in comments or
// literals); std::min and std::max become PL_STD_MIN and PL_STD_MAX, defined in front.
inline std::string without_std_math(std::string_view text) {
  if (text.find("std") == std::string_view::npos) return std::string(text);
  std::vector<source_definition> defines;
  const std::string code = code_only(text, defines);
  std::vector<std::pair<std::size_t, std::size_t>> found;
  find_std_math(code, 0, code.size(), found);
  for (const source_definition& d : defines) find_std_math(text, d.begin, d.end, found);
  if (found.empty()) return std::string(text);
  std::sort(found.begin(), found.end());
  std::string out;
  std::size_t copied = 0;
  bool min_max = false;
  for (const auto& [from, to] : found) {
    out.append(text.substr(copied, from - copied));
    copied = to;
    for (const std::string_view name : {std::string_view("min"), std::string_view("max")}) {
      if (text.compare(to, name.size(), name) == 0 &&
          (to + name.size() == text.size() || !is_name_char(text[to + name.size()]))) {
        out.append(name == "min" ? "PL_STD_MIN" : "PL_STD_MAX");
        copied = to + name.size();
        min_max = true;
      }
    }
  }
  out.append(text.substr(copied));
  return min_max ? std::string(std_min_max) + out : out;
}

}  // namespace parloop::detail
