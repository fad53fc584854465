// SPDX-License-Identifier: MIT
// Element-wise comparison of computed values with independently computed ones.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace parloop_test {

// Relative tolerance per type: integers are exact; floating results may differ from the
// reference in summation order only, a few ulps per operation.
template <class T>
constexpr double tolerance() {
  if constexpr (std::is_integral_v<T>)
    return 0.0;
  else if constexpr (std::is_same_v<T, float>)
    return 1e-5;
  else
    return 1e-12;
}

template <class T>
void check_values(std::span<const T> got, const std::vector<T>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    const double scale = std::max(1.0, std::fabs(w));
    if (std::fabs(g - w) > tolerance<T>() * scale) {
      if (++bad <= 5) FAIL_CHECK("value " << i << ": got " << g << ", want " << w);
    }
  }
  CHECK(bad == 0);
}

template <class T>
void check_value(T got, T want) {
  check_values<T>(std::span<const T>(&got, 1), std::vector<T>{want});
}

}  // namespace parloop_test
