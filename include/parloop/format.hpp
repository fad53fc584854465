// SPDX-License-Identifier: MIT
// parloop's own text: fmt's formatting, with each format string checked at compile time only
// where PARLOOP_CHECK_FORMATS is 1. Checking is consteval work for every call in every unit that
// includes the headers (a sixth of a header-only program's parse) for strings a program never
// changes, so parloop's build sets it only in units that are never linked (one that includes every
// header, the documentation's programs): no program mixes checked and unchecked definitions.
#pragma once

#include <string>

#ifndef PARLOOP_CHECK_FORMATS
#define PARLOOP_CHECK_FORMATS 0
#endif

// fmt's core API (vformat, the argument store) is all an unchecked string needs; the checks and
// the formatting itself are fmt/format.h's and the fmt library's.
#if PARLOOP_CHECK_FORMATS
#include <fmt/format.h>
#else
#include <fmt/core.h>
#endif

namespace parloop::detail {

#if PARLOOP_CHECK_FORMATS
template <class... Args>
using format_string = fmt::format_string<const Args&...>;
#else
template <class... Args>
using format_string = fmt::string_view;
#endif

template <class... Args>
std::string format(format_string<Args...> text, const Args&... args) {
  return fmt::vformat(text, fmt::make_format_args(args...));
}

}  // namespace parloop::detail
