// SPDX-License-Identifier: MIT
// How the emitter reaches a kernel's arguments: where an element's values lie (by element or by
// component), gathered into private copies before the body and scattered back after it by
// access mode, atomically where several work-items can reach one target.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/dsl/source_functions.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/written_first.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

// Where element `at` of p's values starts: components apart by the stride kept by components,
// else dim values per element.
inline std::string emitter::element_start(const ir::param& p, const std::string& element) const {
  return soa(p) ? element : parloop::detail::format("{} * {}", element, p.dim);
}

// Component k of p's values at `at` (an element_start). The stride's multiple is 64-bit: a
// dat of many components on a large set goes past the int range.
inline std::string emitter::dat_value(const ir::param& p, const std::string& at, const std::string& k) {
  if (!soa(p)) return parloop::detail::format("data{}[{} + {}]", p.data, at, k);
  if (k == "0") return parloop::detail::format("data{}[{}]", p.data, at);
  return parloop::detail::format("data{}[{} + ({})data{}_stride * {}]", p.data, at, index_type(), p.data, k);
}

// The element of p's dat that map slot `slot` (an expression) reaches from the loop's element
// pl_e. In a loop over an extruded set, pl_e is a column: a layered map's row is the column's
// bottom targets, pl_l layers up; over interior facets its slots are the row's twice, the cell
// below's and then the cell above's (one layer further).
inline std::string emitter::map_target(const ir::param& p, const std::string& slot) {
  const std::string_view index = index_type();
  const bool facets = p.layered && k_.extrusion.facets;
  const int per_column = facets ? p.arity / 2 : p.arity;
  const std::string in_row = facets ? parloop::detail::format("{} % {}", slot, per_column) : slot;
  const std::string target =
      parloop::detail::format("({})map{}[({})pl_e * {} + {}]", index, p.map, index, per_column, in_row);
  if (!p.layered) return target;
  if (facets) return parloop::detail::format("({} + pl_l + {} / {})", target, slot, per_column);
  return parloop::detail::format("({} + pl_l)", target);
}

// The element of p's dat a direct argument reaches: the loop's element, or in a loop over an
// extruded set (pl_e a column) the column's cell in layer pl_l for a dat on the extruded set.
inline std::string emitter::direct_target(const ir::param& p) {
  if (!p.layered) return parloop::detail::format("({})pl_e", index_type());
  return parloop::detail::format("(({})pl_e * {} + pl_l)", index_type(), k_.extrusion.layers);
}

inline void emitter::declare_private(source_writer& w, std::size_t i, const ir::param& p) {
  if (p.kind == arg_kind::whole_map) {
    if (raw())
      w.line("{} arg{}[{}];", type(p.type), i, p.arity * p.dim);
    else
      w.line("{} arg{}[{}][{}];", type(p.type), i, p.arity, p.dim);
  } else {
    w.line("{} arg{}[{}];", type(p.type), i, p.dim);
  }
}

// Before the body: pointers, private copies and their old values. A staged argument's private
// copy is the block's (block_elements).
inline void emitter::gather(source_writer& w, std::size_t i, const ir::param& p) {
  const holding h = holding_of(p);
  if (h == holding::partial || h == holding::constant || staged(p)) return;
  if (p.kind == arg_kind::indirect) {
    w.line("const {} arg{}_at = {};", index_type(), i, element_start(p, map_target(p, std::to_string(p.slot))));
  } else if (p.kind == arg_kind::direct) {
    w.line("const {} arg{}_at = {};", index_type(), i, element_start(p, direct_target(p)));
  }
  declare_private(w, i, p);
  // Every other copy starts from the old value (WRITE too, unless the body assigns every
  // component before reading any: it may leave components unwritten, which must keep their
  // values).
  if (starts_at_identity(p)) {
    const std::string start = identity(p.mode, p.type);
    for_elements(
        w, i, p,
        [&](const std::string& mine, const std::string&) { return parloop::detail::format("{} = {};", mine, start); },
        false);
  } else if (p.mode == access::write && p.kind != arg_kind::whole_map &&
             ir::written_before_read(k_, static_cast<ir::id>(i))) {
    // Every component is assigned before it is read: the old values are never seen. (A whole
    // map's slots are not told apart by written_before_read.)
  } else {
    for_elements(w, i, p, [](const std::string& mine, const std::string& data) {
      return parloop::detail::format("{} = {};", mine, data);
    });
  }
}

// After the body: private copies go back to their buffers.
inline void emitter::scatter(source_writer& w, std::size_t i, const ir::param& p) {
  if (holding_of(p) != holding::private_copy || p.mode == access::read || staged(p)) return;
  // Through a map several work-items can reach one element: INC, MIN and MAX combine
  // atomically, unless the loop runs a colour at a time, whose elements reach distinct targets.
  const bool shared = through_map(p.kind) && !colored_;
  if (!starts_at_identity(p)) {
    for_elements(w, i, p, [](const std::string& mine, const std::string& data) {
      return parloop::detail::format("{} = {};", data, mine);
    });
    return;
  }
  const atomic_op o = p.mode == access::inc ? atomic_op::add : p.mode == access::min ? atomic_op::min : atomic_op::max;
  for_elements(w, i, p, [&](const std::string& mine, const std::string& data) -> std::string {
    if (shared) {
      atomics_.insert({o, p.type});
      if (o != atomic_op::add && is_floating(p.type))
        minmax_.insert({o == atomic_op::min ? ir::op::min : ir::op::max, p.type});
      d_.atomic_features(o, p.type, features_);
      return parloop::detail::format("pl_atomic_{}_{}(&{}, {});", atomic_name(o), type_tag(p.type), data, mine);
    }
    if (o == atomic_op::add) return parloop::detail::format("{} += {};", data, mine);
    return parloop::detail::format("{} = {};", data,
                                   minmax_call(o == atomic_op::min ? ir::op::min : ir::op::max, p.type, data, mine));
  });
}

// The C function's parameters: one pointer per argument, const for READ; or where the kernel's
// IR says how its function declares them (OP2's), those types.
inline std::string emitter::raw_parameters() {
  std::string out;
  // The user's array parameters arrive written as pointers (dsl/source_array_parameters.hpp).
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (k_.raw_params.empty()) {
      out += parloop::detail::format("{}{}{}* a{}", i == 0 ? "" : ", ", p.mode == access::read ? "const " : "",
                                     type(p.type), i);
    } else {
      const ir::raw_param& r = k_.raw_params.at(i);
      out += parloop::detail::format("{}{}{}*{} a{}", i == 0 ? "" : ", ", r.is_const ? "const " : "", type(r.type),
                                     r.per_slot ? "*" : "", i);
    }
  }
  return out;
}

// The call of the C function on the private copies. A parameter taken a pointer per slot gets an
// array of pointers into its copy; one of other constness or type than the copy gets it cast
// (its types were checked against the argument's when the loop was called).
inline void emitter::raw_call(source_writer& w) {
  std::string args;
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    std::string arg = parloop::detail::format("arg{}", i);
    if (!k_.raw_params.empty()) {
      const ir::raw_param& r = k_.raw_params.at(i);
      const std::string pointer = parloop::detail::format("{}{}*", r.is_const ? "const " : "", type(r.type));
      if (r.per_slot) {
        std::string slots;
        for (int j = 0; j < p.arity; ++j)
          slots += parloop::detail::format("{}({})(arg{} + {})", j == 0 ? "" : ", ", pointer, i, j * p.dim);
        w.line("{} arg{}_slots[{}] = {{{}}};", pointer, i, p.arity, slots);
        arg = parloop::detail::format("arg{}_slots", i);
      } else {
        arg = parloop::detail::format("({})arg{}", pointer, i);
      }
    }
    args += parloop::detail::format("{}{}", i == 0 ? "" : ", ", arg);
  }
  w.line("{}({});", raw_function_name(k_), args);
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
