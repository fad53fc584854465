// SPDX-License-Identifier: MIT
// Launch strategies: how a loop's iteration range maps onto work-items. A strategy is chosen
// like an access mode (per loop, or as a runtime's default); codegen/kernel_source.hpp turns it
// into generated code and the grid-size functor that goes with it.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

// One element per work-item, `block` work-items per group: the GPU shape.
struct split_n_across_workgroups {
  int block = 256;
  friend bool operator==(const split_n_across_workgroups&, const split_n_across_workgroups&) = default;
};

// A grid sized to the device (`waves` groups per compute unit, fewer for a short range);
// each work-item strides through the range by the grid's size.
struct grid_stride {
  int block = 256;
  int waves = 4;
  friend bool operator==(const grid_stride&, const grid_stride&) = default;
};

// `per_item` consecutive elements per work-item: the CPU shape (a core runs through memory).
struct chunked {
  int block = 16;
  int per_item = 64;
  friend bool operator==(const chunked&, const chunked&) = default;
};

// `width` (2 or 4) consecutive elements per work-item, starting at a multiple of `width`: each
// direct argument of the loop moves as `width`-wide vectors (a double2 holds two elements' values),
// half or a quarter of the load and store instructions of one element per work-item. Elements
// of a vector the range cuts, and loops without direct arguments, go one element at a time.
struct vectors_across_workgroups {
  int block = 128;
  int width = 2;
  friend bool operator==(const vectors_across_workgroups&, const vectors_across_workgroups&) = default;
};

using strategy = std::variant<split_n_across_workgroups, grid_stride, chunked, vectors_across_workgroups>;

// As written in code: "chunked{16, 64}".
inline std::string to_string(const strategy& s) {
  return std::visit(
      [](const auto& v) -> std::string {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, split_n_across_workgroups>)
          return parloop::detail::format("split_n_across_workgroups{{{}}}", v.block);
        else if constexpr (std::is_same_v<S, grid_stride>)
          return parloop::detail::format("grid_stride{{{}, {}}}", v.block, v.waves);
        else if constexpr (std::is_same_v<S, vectors_across_workgroups>)
          return parloop::detail::format("vectors_across_workgroups{{{}, {}}}", v.block, v.width);
        else
          return parloop::detail::format("chunked{{{}, {}}}", v.block, v.per_item);
      },
      s);
}

namespace detail {

inline int block_size(const strategy& s) {
  return std::visit([](const auto& v) { return v.block; }, s);
}

// Refuses parameters no launch can have.
inline void check_strategy(const strategy& s) {
  const bool ok = std::visit(
      [](const auto& v) {
        using S = std::decay_t<decltype(v)>;
        bool fine = v.block >= 1 && v.block <= 1024;
        if constexpr (std::is_same_v<S, grid_stride>) fine = fine && v.waves >= 1;
        if constexpr (std::is_same_v<S, chunked>) fine = fine && v.per_item >= 1;
        if constexpr (std::is_same_v<S, vectors_across_workgroups>) fine = fine && (v.width == 2 || v.width == 4);
        return fine;
      },
      s);
  if (!ok) {
    throw argument_error(parloop::detail::format(
        "strategy {}: the block must be 1 to 1024 work-items, waves and per_item at least 1, and width 2 or 4",
        to_string(s)));
  }
}

}  // namespace detail
}  // namespace parloop
