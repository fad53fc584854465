// SPDX-License-Identifier: MIT
// Random meshes and data for the tests, from a fixed seed so that failures repeat.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include <parloop/config.hpp>

namespace parloop_test {

inline std::mt19937& rng() {
  static std::mt19937 gen(20261129);
  return gen;
}

// from_size rows of `arity` random targets in [0, to_size).
inline std::vector<parloop::index_t> random_map(int from_size, int to_size, int arity) {
  std::uniform_int_distribution<parloop::index_t> pick(0, to_size - 1);
  std::vector<parloop::index_t> v(static_cast<std::size_t>(from_size) * arity);
  for (auto& x : v) x = pick(rng());
  return v;
}

// Every target exactly once: a map under which writes never collide.
inline std::vector<parloop::index_t> permutation_map(int size) {
  std::vector<parloop::index_t> v(static_cast<std::size_t>(size));
  std::iota(v.begin(), v.end(), 0);
  std::shuffle(v.begin(), v.end(), rng());
  return v;
}

// Values small enough that sums of a few hundred stay exact in every type.
template <class T>
std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(-50, 50);
    for (auto& x : v) x = static_cast<T>(d(rng()));
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) x = static_cast<T>(d(rng()));
  }
  return v;
}

}  // namespace parloop_test
