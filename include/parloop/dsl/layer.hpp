// SPDX-License-Identifier: MIT
// pl::layer(): the layer of the cell a loop over an extruded set is running, as PyOP2's layer
// argument is, but asked for where it is used rather than passed to every kernel.
#pragma once

#include <cstdint>

#include "parloop/dsl/expr.hpp"
#include "parloop/error.hpp"

namespace parloop::dsl {

// The host backend's current layer on this thread: set by the loop over an extruded set around
// each cell it runs (the threads backend's threads each have their own), -1 elsewhere. 64-bit,
// so that storing it cannot alias the int map values and int dats the loop reads: as an int,
// every store would make the compiler read the maps again.
inline thread_local std::int64_t host_layer = -1;

// Sets the thread's layer for the cells a host loop runs, and leaves it as it was after them,
// also when the kernel throws.
class host_layer_scope {
 public:
  host_layer_scope() : saved_(host_layer) {}
  host_layer_scope(const host_layer_scope&) = delete;
  host_layer_scope& operator=(const host_layer_scope&) = delete;
  ~host_layer_scope() { host_layer = saved_; }

 private:
  std::int64_t saved_;
};

struct layer_node : expr<layer_node> {
  using node_type = layer_node;
  using value_type = int;
  // Neither host nor traced: a value of whichever loop runs it.
  static constexpr origin where = origin::neutral;

  int eval() const {
    if (host_layer < 0) {
      throw trace_error(
          "pl::layer() is the layer of the cell being run in a loop over an extruded set, and this loop "
          "is over a set that is not extruded");
    }
    return static_cast<int>(host_layer);
  }
  ir::id lower(ir::builder& b) const { return b.layer(); }
};

}  // namespace parloop::dsl

namespace parloop {
// In a loop over an extruded set (or a region of one): the layer of the cell being run, from 0 at
// the bottom of its column; over interior facets, the layer of the cell below the facet.
inline dsl::layer_node layer() { return {}; }
}  // namespace parloop
