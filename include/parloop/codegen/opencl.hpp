// SPDX-License-Identifier: MIT
// The OpenCL C dialect: __kernel, __global pointers, get_global_id, extension pragmas, and
// atomics from OpenCL 1.2 built-ins and compare-and-swap loops.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "parloop/config.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

class opencl_dialect final : public dialect {
 public:
  dialect_kind kind() const override { return dialect_kind::opencl; }

  std::string_view type(scalar_type t) const override {
    switch (t) {
      case scalar_type::boolean: return "bool";
      case scalar_type::int32: return "int";
      case scalar_type::int64: return "long";
      case scalar_type::float32: return "float";
      case scalar_type::float64: return "double";
    }
    return "?";
  }
  std::string int64_literal(std::int64_t v) const override {
    if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807L - 1L)";
    return parloop::detail::format("{}L", v);
  }
  std::string infinity(scalar_type t, bool negative) const override {
    const std::string inf = t == scalar_type::float32 ? "INFINITY" : "(double)INFINITY";
    return negative ? "(-" + inf + ")" : inf;
  }
  std::string not_a_number(scalar_type t) const override { return t == scalar_type::float32 ? "NAN" : "(double)NAN"; }
  // OpenCL's math built-ins are overloaded on float and double.
  std::string math(ir::op o, scalar_type) const override { return std::string(ir::op_name(o)); }

  std::string kernel_head(std::string_view entry) const override {
    return parloop::detail::format("__kernel void {}", entry);
  }
  std::string buffer(scalar_type t, bool is_const) const override {
    return parloop::detail::format("__global {}{}* restrict", is_const ? "const " : "", type(t));
  }
  std::string_view work_item() const override { return "(long)get_global_id(0)"; }
  std::string_view work_items() const override { return "(long)get_global_size(0)"; }
  std::string_view local_id() const override { return "(int)get_local_id(0)"; }
  std::string_view group_id() const override { return "get_group_id(0)"; }
  std::string local_array(std::string_view type, std::string_view name, int size) const override {
    return parloop::detail::format("__local {} {}[{}]", type, name, size);
  }
  std::string_view barrier() const override { return "barrier(CLK_LOCAL_MEM_FENCE);"; }
  std::string_view barrier_with_global() const override {
    return "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);";
  }
  std::string_view global_fence() const override { return "mem_fence(CLK_GLOBAL_MEM_FENCE);"; }
  std::string_view groups() const override { return "(long)get_num_groups(0)"; }
  std::string atomic_ticket(std::string_view counter) const override {
    return parloop::detail::format("atomic_inc({})", counter);
  }
  std::string atomic_compare_exchange(std::string_view p, std::string_view expected,
                                      std::string_view desired) const override {
    return parloop::detail::format("atomic_cmpxchg({}, {}, {})", p, expected, desired);
  }
  // Sub-group shuffles are an extension few OpenCL devices share: groups reduce through local memory.
  int warp_size() const override { return 0; }
  std::string shuffle_down(std::string_view, std::string_view) const override { return {}; }
  std::string vector_type(scalar_type t, int lanes) const override {
    return parloop::detail::format("{}{}", type(t), lanes);
  }
  std::string load_vector(scalar_type, int lanes, std::string_view buffer, std::string_view index) const override {
    return parloop::detail::format("vload{}({}, {})", lanes, index, buffer);
  }
  std::string store_vector(scalar_type, int lanes, std::string_view value, std::string_view buffer,
                           std::string_view index) const override {
    return parloop::detail::format("vstore{}({}, {}, {});", lanes, value, index, buffer);
  }
  std::string volatile_pointer(scalar_type t) const override {
    return parloop::detail::format("volatile __global const {}*", type(t));
  }
  std::string_view helper_qualifiers() const override { return "static inline"; }

  // OpenCL C keeps a program-scope variable only in the constant address space.
  void source_prelude(source_writer& w) const override { w.line("#define PL_CONSTANT __constant"); }
  // A declaration whose types differ from the definition's is a C error ("conflicting types").
  std::string prototype_check(std::string_view name, std::string_view params) const override {
    return parloop::detail::format("void {}({});", name, params);
  }

  void pragmas(source_writer& w, const features& f) const override {
    if (f.fp64) w.line("#pragma OPENCL EXTENSION cl_khr_fp64 : enable");
    if (f.int64_atomics) w.line("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable");
    if (f.int64_extended_atomics) w.line("#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable");
  }

  void atomic_helper(source_writer& w, atomic_op o, scalar_type t) const override {
    w.open("{} void pl_atomic_{}_{}(volatile __global {}* p, {} v)", helper_qualifiers(), atomic_name(o), type_tag(t),
           type(t), type(t));
    if (t == scalar_type::int32) {
      w.line("atomic_{}(p, v);", atomic_name(o));
    } else if (t == scalar_type::int64) {
      w.line("atom_{}(p, v);", atomic_name(o));
    } else {
      // No floating atomics in OpenCL 1.2: retry a compare-and-swap on the bits.
      const bool f32 = t == scalar_type::float32;
      const std::string_view bits = f32 ? "uint" : "ulong";
      const std::string_view as_bits = f32 ? "as_uint" : "as_ulong";
      const std::string_view as_value = f32 ? "as_float" : "as_double";
      const std::string_view cas = f32 ? "atomic_cmpxchg" : "atom_cmpxchg";
      const std::string next = o == atomic_op::add ? parloop::detail::format("{}(expected) + v", as_value)
                                                   : parloop::detail::format("pl_{}_{}({}(expected), v)",
                                                                             atomic_name(o), type_tag(t), as_value);
      w.line("{} seen = {}(*p);", bits, as_bits);
      w.line("{} expected;", bits);
      w.open("do");
      w.line("expected = seen;");
      w.line("seen = {}((volatile __global {}*)p, expected, {}({}));", cas, bits, as_bits, next);
      w.close(" while (seen != expected);");
    }
    w.close();
  }

  void atomic_features(atomic_op o, scalar_type t, features& f) const override {
    if (t == scalar_type::int64 || t == scalar_type::float64) f.int64_atomics = true;
    if (t == scalar_type::int64 && o != atomic_op::add) f.int64_extended_atomics = true;
  }
};

}  // namespace parloop::codegen

PARLOOP_COLD_END
