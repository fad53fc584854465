// SPDX-License-Identifier: MIT
// How often a par_loop of a traced kernel traces its lambda again to find a captured value that
// changed: devices run the first trace of a signature, the host runs the lambda, so a changed
// capture would give each its own answer. exec/loop/run_range.hpp's check_trace does the check.
#pragma once

#include <cstdint>

namespace parloop {

enum class trace_checks {
  // Never: for a program that has shown its captures do not change.
  off,
  // Every call of a signature's first trace_checks_first calls, then one in trace_checks_every:
  // the default, in every build, at a cost a warm launch does not notice.
  sampled,
  // Every call: the test suite's setting.
  every_call,
};

namespace detail {

// The sampled schedule. A loop of a few calls is checked whole; a long-running one within
// trace_checks_every calls of its capture changing, for a share of its launches' cost small
// enough that nobody turns it off (benchmarks: bench_threads, bench_cuda).
inline constexpr std::uint64_t trace_checks_first = 16;
inline constexpr std::uint64_t trace_checks_every = 128;

// Whether call n (from 0) of one signature is traced again under `mode`.
constexpr bool trace_checked(trace_checks mode, std::uint64_t n) {
  switch (mode) {
    case trace_checks::off: return false;
    case trace_checks::every_call: return true;
    case trace_checks::sampled: return n < trace_checks_first || n % trace_checks_every == 0;
  }
  return true;
}

}  // namespace detail
}  // namespace parloop
