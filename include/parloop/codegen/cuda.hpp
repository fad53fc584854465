// SPDX-License-Identifier: MIT
// The CUDA dialect: extern "C" __global__ entry points, plain pointers, blockIdx/threadIdx,
// float math names with an f suffix, and atomics from CUDA's built-ins.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "parloop/config.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

class cuda_dialect final : public dialect {
 public:
  dialect_kind kind() const override { return dialect_kind::cuda; }

  std::string_view type(scalar_type t) const override {
    switch (t) {
      case scalar_type::boolean: return "bool";
      case scalar_type::int32: return "int";
      case scalar_type::int64: return "long long";
      case scalar_type::float32: return "float";
      case scalar_type::float64: return "double";
    }
    return "?";
  }
  std::string int64_literal(std::int64_t v) const override {
    if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1LL)";
    return parloop::detail::format("{}LL", v);
  }
  // NVRTC has no math headers by default: build the special values from their bits.
  std::string infinity(scalar_type t, bool negative) const override {
    const std::string inf =
        t == scalar_type::float32 ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
    return negative ? "(-" + inf + ")" : inf;
  }
  std::string not_a_number(scalar_type t) const override {
    return t == scalar_type::float32 ? "__int_as_float(0x7fffffff)" : "__longlong_as_double(0x7fffffffffffffffLL)";
  }
  std::string math(ir::op o, scalar_type t) const override {
    return std::string(ir::op_name(o)) + (t == scalar_type::float32 ? "f" : "");
  }

  std::string kernel_head(std::string_view entry) const override {
    return parloop::detail::format("extern \"C\" __global__ void {}", entry);
  }
  std::string buffer(scalar_type t, bool is_const) const override {
    return parloop::detail::format("{}{}* __restrict__", is_const ? "const " : "", type(t));
  }
  std::string_view work_item() const override { return "(long long)blockIdx.x * blockDim.x + threadIdx.x"; }
  std::string_view work_items() const override { return "((long long)gridDim.x * blockDim.x)"; }
  std::string_view local_id() const override { return "(int)threadIdx.x"; }
  std::string_view group_id() const override { return "blockIdx.x"; }
  std::string local_array(std::string_view type, std::string_view name, int size) const override {
    return parloop::detail::format("__shared__ {} {}[{}]", type, name, size);
  }
  std::string_view barrier() const override { return "__syncthreads();"; }
  std::string_view barrier_with_global() const override { return "__syncthreads();"; }
  std::string_view global_fence() const override { return "__threadfence();"; }
  std::string_view groups() const override { return "((long long)gridDim.x)"; }
  std::string atomic_ticket(std::string_view counter) const override {
    return parloop::detail::format("atomicAdd({}, 1)", counter);
  }
  std::string atomic_compare_exchange(std::string_view p, std::string_view expected,
                                      std::string_view desired) const override {
    return parloop::detail::format("atomicCAS({}, {}, {})", p, expected, desired);
  }
  int warp_size() const override { return 32; }
  std::string shuffle_down(std::string_view value, std::string_view delta) const override {
    return parloop::detail::format("__shfl_down_sync(0xffffffffu, {}, {})", value, delta);
  }
  std::string vector_type(scalar_type t, int lanes) const override {
    return parloop::detail::format("{}{}", t == scalar_type::int64 ? "longlong" : type(t), lanes);
  }
  std::string load_vector(scalar_type t, int lanes, std::string_view buffer, std::string_view index) const override {
    return parloop::detail::format("((const {}*){})[{}]", vector_type(t, lanes), buffer, index);
  }
  std::string store_vector(scalar_type t, int lanes, std::string_view value, std::string_view buffer,
                           std::string_view index) const override {
    return parloop::detail::format("(({}*){})[{}] = {};", vector_type(t, lanes), buffer, index, value);
  }
  std::string volatile_pointer(scalar_type t) const override {
    return parloop::detail::format("volatile const {}*", type(t));
  }
  std::string_view helper_qualifiers() const override { return "static __device__ __forceinline__"; }

  void source_prelude(source_writer& w) const override { w.line("#define PL_CONSTANT __constant__"); }
  // C++ would take a declaration of other types as an overload: converting the function to the
  // expected pointer type instead fails unless one with exactly these types exists.
  std::string prototype_check(std::string_view name, std::string_view params) const override {
    return parloop::detail::format(
        "static_assert(sizeof(static_cast<void (*)({})>(&{})) != 0, \"parloop: the function of a "
        "kernel from source takes one pointer per argument, const for READ\");",
        params, name);
  }

  void pragmas(source_writer&, const features&) const override {}

  void atomic_helper(source_writer& w, atomic_op o, scalar_type t) const override {
    w.open("{} void pl_atomic_{}_{}({}* p, {} v)", helper_qualifiers(), atomic_name(o), type_tag(t), type(t), type(t));
    const std::string_view builtin = o == atomic_op::add   ? "atomicAdd"
                                     : o == atomic_op::min ? "atomicMin"
                                                           : "atomicMax";
    if (t == scalar_type::int64 && o == atomic_op::add) {
      // Two's complement: an unsigned add gives the signed sum.
      w.line("atomicAdd((unsigned long long*)p, (unsigned long long)v);");
    } else if (!is_floating(t) || o == atomic_op::add) {
      w.line("{}(p, v);", builtin);
    } else {
      // No floating atomic min / max: retry a compare-and-swap on the bits.
      const bool f32 = t == scalar_type::float32;
      const std::string_view bits = f32 ? "int" : "unsigned long long";
      const std::string_view as_bits = f32 ? "__float_as_int" : "(unsigned long long)__double_as_longlong";
      const std::string_view as_value = f32 ? "__int_as_float" : "__longlong_as_double";
      w.line("{} seen = {}(*p);", bits, as_bits);
      w.line("{} expected;", bits);
      w.open("do");
      w.line("expected = seen;");
      w.line("seen = atomicCAS(({}*)p, expected, {}(pl_{}_{}({}(({})expected), v)));", bits, as_bits, atomic_name(o),
             type_tag(t), as_value, f32 ? "int" : "long long");
      w.close(" while (seen != expected);");
    }
    w.close();
  }

  void atomic_features(atomic_op o, scalar_type t, features& f) const override {
    if (o == atomic_op::add && t == scalar_type::float64) f.float64_atomic_add = true;
  }
};

}  // namespace parloop::codegen

PARLOOP_COLD_END
