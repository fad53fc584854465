// SPDX-License-Identifier: MIT
// cereal serialization of the grid-size functor, as the disk cache stores it next to the
// binary. Loading validates the program, so a damaged record is refused, not evaluated.
#pragma once

#include <cstdint>
#include <vector>

#include <cereal/cereal.hpp>
#include <cereal/types/vector.hpp>

#include "parloop/exec/grid.hpp"

namespace parloop::exec {

template <class Archive>
void save(Archive& archive, const grid_node& n) {
  archive(static_cast<std::uint8_t>(n.op), n.value);
}
template <class Archive>
void load(Archive& archive, grid_node& n) {
  std::uint8_t op = 0;
  archive(op, n.value);
  n.op = static_cast<grid_op>(op);
}

template <class Archive>
void save(Archive& archive, const grid_size_functor& f) {
  archive(f.program());
}
template <class Archive>
void load(Archive& archive, grid_size_functor& f) {
  std::vector<grid_node> program;
  archive(program);
  f = grid_size_functor(std::move(program));
}

}  // namespace parloop::exec
