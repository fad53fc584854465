// SPDX-License-Identifier: MIT
// What differs between the device languages parloop writes: one implementation per dialect.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parloop/config.hpp"
#include "parloop/codegen/writer.hpp"
#include "parloop/ir/types.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

enum class dialect_kind : std::uint8_t { opencl, cuda };

enum class atomic_op : std::uint8_t { add, min, max };

constexpr std::string_view atomic_name(atomic_op o) {
  switch (o) {
    case atomic_op::add: return "add";
    case atomic_op::min: return "min";
    case atomic_op::max: return "max";
  }
  return "?";
}

// A short tag naming a scalar type inside helper names (pl_atomic_add_f64).
constexpr std::string_view type_tag(scalar_type t) {
  switch (t) {
    case scalar_type::boolean:
    case scalar_type::int32: return "i32";
    case scalar_type::int64: return "i64";
    case scalar_type::float32: return "f32";
    case scalar_type::float64: return "f64";
  }
  return "?";
}

inline std::string_view name_of(dialect_kind kind) { return kind == dialect_kind::opencl ? "OpenCL C" : "CUDA"; }
// The file extension of dumped sources.
inline std::string_view extension_of(dialect_kind kind) { return kind == dialect_kind::opencl ? "cl" : "cu"; }

// Language features a generated source uses, which some dialects must switch on.
struct features {
  bool fp64 = false;                    // computes in double
  bool int64_atomics = false;           // 64-bit atomic add and compare-and-swap
  bool int64_extended_atomics = false;  // 64-bit atomic min and max
  bool float64_atomic_add = false;      // atomic add of doubles (CUDA: sm_60 and newer)
  std::size_t group_memory = 0;         // bytes of local (shared) memory a work-group declares
};

class dialect {
 public:
  virtual ~dialect() = default;

  virtual dialect_kind kind() const = 0;

  virtual std::string_view type(scalar_type t) const = 0;
  virtual std::string int64_literal(std::int64_t v) const = 0;
  virtual std::string infinity(scalar_type t, bool negative) const = 0;
  virtual std::string not_a_number(scalar_type t) const = 0;
  // The name of a math function on arguments of type t.
  virtual std::string math(ir::op o, scalar_type t) const = 0;

  // `<qualifiers> void entry` of a kernel entry point.
  virtual std::string kernel_head(std::string_view entry) const = 0;
  // The declaration of a device buffer parameter, without its name.
  virtual std::string buffer(scalar_type t, bool is_const) const = 0;
  // A 64-bit expression: this work-item's index in the whole launch (a launch may have more
  // than INT_MAX work-items).
  virtual std::string_view work_item() const = 0;
  // A 64-bit expression: how many work-items the launch has.
  virtual std::string_view work_items() const = 0;
  // This work-item's index in its group, and the group's index in the launch.
  virtual std::string_view local_id() const = 0;
  virtual std::string_view group_id() const = 0;
  // The declaration of an array in the group's shared memory, and a barrier over the group.
  virtual std::string local_array(std::string_view type, std::string_view name, int size) const = 0;
  virtual std::string_view barrier() const = 0;
  // A barrier over the group that also orders its global memory accesses.
  virtual std::string_view barrier_with_global() const = 0;
  // Orders this work-item's global memory writes before its later ones (seen by other groups).
  virtual std::string_view global_fence() const = 0;
  // A 64-bit expression: how many groups the launch has.
  virtual std::string_view groups() const = 0;
  // An int expression: the value of the int at `counter`, which it increments atomically.
  virtual std::string atomic_ticket(std::string_view counter) const = 0;
  // An int expression: the old value of the int at `p`, which becomes `desired` if it was
  // `expected`, atomically.
  virtual std::string atomic_compare_exchange(std::string_view p, std::string_view expected,
                                              std::string_view desired) const = 0;
  // Work-items that exchange registers without local memory (a CUDA warp): 0 where the
  // dialect has no such exchange.
  virtual int warp_size() const = 0;
  // An expression: `value` as the work-item `delta` places up in this warp holds it (its own
  // where there is none). Every work-item of the warp must reach it.
  virtual std::string shuffle_down(std::string_view value, std::string_view delta) const = 0;
  // A vector of `lanes` (2 or 4) values of type t, with components .x .y (.z .w).
  virtual std::string vector_type(scalar_type t, int lanes) const = 0;
  // An expression: the vector of `lanes` values at `buffer + index * lanes`; the buffer is
  // aligned to the vector's size.
  virtual std::string load_vector(scalar_type t, int lanes, std::string_view buffer, std::string_view index) const = 0;
  // A statement: stores `value` as the vector of `lanes` values at `buffer + index * lanes`.
  virtual std::string store_vector(scalar_type t, int lanes, std::string_view value, std::string_view buffer,
                                   std::string_view index) const = 0;
  // A pointer type through which reads see other groups' writes, not a cached copy.
  virtual std::string volatile_pointer(scalar_type t) const = 0;
  // The qualifiers of a device helper function.
  virtual std::string_view helper_qualifiers() const = 0;

  virtual void pragmas(source_writer& w, const features& f) const = 0;
  // Before a kernel's C source: what it may use (PL_CONSTANT, the qualifier of a file-scope
  // constant).
  virtual void source_prelude(source_writer& w) const = 0;
  // After it: a line that fails to compile unless `name` is `void name(<params>)`, so that a
  // function of other types is an error, not a call through the wrong pointer types.
  virtual std::string prototype_check(std::string_view name, std::string_view params) const = 0;
  // The statements of `void pl_atomic_<op>_<type>(p, v)`: *p = *p op v, atomically.
  virtual void atomic_helper(source_writer& w, atomic_op o, scalar_type t) const = 0;
  // What atomic_helper(o, t) needs switched on.
  virtual void atomic_features(atomic_op o, scalar_type t, features& f) const = 0;
};

}  // namespace parloop::codegen

PARLOOP_COLD_END
