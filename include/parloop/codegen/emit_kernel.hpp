// SPDX-License-Identifier: MIT
// The emitter's whole source and its entry point: the parameters of ir::buffers(), the
// constants and partial results each work-item keeps, one element's gather, body and scatter,
// and the helpers the body calls, guarded so that several sources can be compiled as one.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/dsl/source_functions.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

inline std::string emitter::emit() {
  // A C source that computes in double needs the device's fp64, even where no argument is double
  // (an OP2 kernel's constants, say).
  if (raw() && parloop::detail::names_word(k_.raw_source, "double")) type(scalar_type::float64);
  source_writer kernel;
  kernel_definition(kernel);

  source_writer out;
  out.line("// parloop kernel '{}' in {}, generated {}", k_.name, name_of(d_.kind()),
           raw() ? "around its C source" : "from its trace");
  d_.pragmas(out, features_);
  helpers(out);
  if (raw()) {
    out.blank();
    d_.source_prelude(out);
    out.line("#undef {}", k_.name);
    out.line("#define {} {}", k_.name, raw_function_name(k_));
    out.verbatim(k_.raw_source);
    out.line("// The function parloop calls; a definition of other types above fails here.");
    out.line("{}", d_.prototype_check(raw_function_name(k_), raw_parameters()));
    out.line("#undef {}", k_.name);
  }
  out.blank();
  out.append(kernel);
  return out.text();
}

inline void emitter::kernel_definition(source_writer& w) {
  std::string params = "const int pl_start, const int pl_end";
  for (const ir::kernel_buffer& b :
       buffers(k_, ir::source_options{.check_indices = checked_, .writes = writes_, .dats = dats_})) {
    type(b.type);  // a double buffer needs fp64, even if the body has no double literal
    switch (b.role) {
      case ir::buffer_role::data:
        params += parloop::detail::format(",\n    {} data{}", d_.buffer(b.type, b.is_const), b.index);
        break;
      case ir::buffer_role::map:
        params += parloop::detail::format(",\n    {} map{}", d_.buffer(b.type, true), b.index);
        break;
      case ir::buffer_role::partials:
        params += parloop::detail::format(",\n    {} arg{}_partials", d_.buffer(b.type, false), b.index);
        break;
      case ir::buffer_role::groups_done:
        params += parloop::detail::format(",\n    {} pl_groups_done", d_.buffer(b.type, false));
        break;
      case ir::buffer_role::index_errors:
        params += parloop::detail::format(",\n    {} pl_index_errors", d_.buffer(b.type, false));
        break;
      case ir::buffer_role::order:
        params += parloop::detail::format(",\n    {} pl_order", d_.buffer(b.type, true));
        break;
      case ir::buffer_role::plan:
        params += parloop::detail::format(",\n    {} pl_plan", d_.buffer(b.type, true));
        break;
      case ir::buffer_role::stride: params += parloop::detail::format(",\n    const int data{}_stride", b.index); break;
    }
  }
  w.open("{}({})", d_.kernel_head(entry_name(k_)), params);
  // A two-level plan's work-items are places in their block.
  if (writes_ != conflicts::blocks) w.line("const {} pl_item = {};", index_type(), d_.work_item());
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (holding_of(p) != holding::constant) continue;
    declare_private(w, i, p);
    for_elements(w, i, p, [](const std::string& mine, const std::string& data) {
      return parloop::detail::format("{} = {};", mine, data);
    });
  }
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (holding_of(p) != holding::partial) continue;
    declare_private(w, i, p);
    const std::string start = identity(p.mode, p.type);
    for_components(w, p.dim,
                   [&](const std::string& k) { return parloop::detail::format("arg{}[{}] = {};", i, k, start); });
  }
  if (writes_ == conflicts::blocks)
    block_elements(w);
  else
    elements(w);
  reduce_in_groups(w);
  w.close();
}

// One element pl_e: gather, body, scatter. An argument in `in_vectors` is the j-th element's
// part of its private pl_vec array instead. In a loop over an extruded set, pl_e is a column,
// whose layers run in order, each its own gather, body and scatter: one work-item has the
// whole column, so its cells' increments of a shared target never race. Run a cell per
// work-item (runs_cells), the work-item's pl_e and pl_l are its cell's.
inline void emitter::element(source_writer& w, const std::vector<bool>& in_vectors, int j) {
  const auto vectored = [&](std::size_t i) { return i < in_vectors.size() && in_vectors[i]; };
  const ir::extrusion& x = k_.extrusion;
  const bool layer_loop = x.layers > 0 && !cells_;
  if (layer_loop) w.open("for (int pl_l = {}; pl_l < {}; ++pl_l)", x.first, x.first + x.count);
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (!vectored(i)) {
      gather(w, i, p);
      continue;
    }
    w.line("{}{}* const arg{} = pl_vec{} + {};", p.mode == access::read ? "const " : "", type(p.type), i, i, j * p.dim);
  }
  if (raw())
    raw_call(w);
  else
    block(w, 0);
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    if (!vectored(i)) scatter(w, i, k_.params[i]);
  }
  if (layer_loop) w.close();
}

// Helpers are guarded so that several generated sources can be compiled as one.
inline void emitter::helpers(source_writer& w) {
  const auto guarded = [&](const std::string& name, auto&& define) {
    w.line("#ifndef {}", name);
    w.line("#define {}", name);
    define();
    w.line("#endif");
  };
  // Named out of the pairs, not bound: clang 14 does not let a lambda capture a structured binding.
  for (const auto& helper : minmax_) {
    const ir::op o = helper.first;
    const scalar_type t = helper.second;
    const std::string name = parloop::detail::format("pl_{}_{}", ir::op_name(o), type_tag(t));
    guarded("PL_HELPER_" + name, [&] {
      w.line("{} {} {}({} a, {} b) {{ return {}; }}", d_.helper_qualifiers(), d_.type(t), name, d_.type(t), d_.type(t),
             o == ir::op::min ? "b < a ? b : a" : "a < b ? b : a");
    });
  }
  for (const auto& atomic : atomics_) {
    const atomic_op o = atomic.first;
    const scalar_type t = atomic.second;
    guarded(parloop::detail::format("PL_HELPER_pl_atomic_{}_{}", atomic_name(o), type_tag(t)),
            [&] { d_.atomic_helper(w, o, t); });
  }
  if (checked_) guarded("PL_HELPER_pl_checked_index", [&] { checked_index_helper(w); });
}

inline void emitter::checked_index_helper(source_writer& w) {
  const std::string errors = d_.buffer(scalar_type::int32, false);
  w.open("{} int pl_checked_index({} pl_i, int pl_bound, int pl_site, int pl_kernel, {} pl_errors)",
         d_.helper_qualifiers(), index_type(), errors);
  w.line("if (pl_i >= 0 && pl_i < pl_bound) return (int)pl_i;");
  w.open("if ({} == 0)", d_.atomic_compare_exchange("pl_errors", "0", "pl_site"));
  w.line("pl_errors[{}] = (int)pl_i;", static_cast<int>(ir::error_index_low));
  w.line("pl_errors[{}] = (int)(pl_i >> 32);", static_cast<int>(ir::error_index_high));
  w.line("pl_errors[{}] = pl_bound;", static_cast<int>(ir::error_bound));
  w.line("pl_errors[{}] = pl_kernel;", static_cast<int>(ir::error_kernel));
  w.close();
  w.line("return 0;");
  w.close();
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
