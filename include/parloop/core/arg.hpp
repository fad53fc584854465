// SPDX-License-Identifier: MIT
// Arguments of a par_loop: a dat or global with its access mode and, if indirect, its map.
#pragma once

#include <cstdint>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/map.hpp"

namespace parloop {

template <class T, int Dim, access Mode, arg_kind Kind>
struct arg {
  using value_type = T;
  static constexpr int dim = Dim;
  static constexpr access mode = Mode;
  static constexpr arg_kind kind = Kind;

  detail::array_state<T>* data;
  detail::map_state* map = nullptr;
  int slot = 0;  // the map slot of an indirect argument
};

}  // namespace parloop
