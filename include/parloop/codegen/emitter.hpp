// SPDX-License-Identifier: MIT
// Writes a kernel's IR as device source in a dialect, for a launch strategy: the entry
// point takes start, end and the buffers of codegen::buffers(); for each of its elements a
// work-item gathers its arguments into private arrays, runs the body, and scatters
// them back by access mode.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "parloop/codegen/dialect.hpp"
#include "parloop/codegen/layout.hpp"
#include "parloop/codegen/writer.hpp"
#include "parloop/core/block_plan.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/ir/kernel.hpp"
#include "parloop/ir/written_first.hpp"

namespace parloop::codegen {

// Every name the generated code makes up starts with pl_, or is arg<N>, data<N> or map<N>;
// the entry point is pl_kernel_<name>, and a local of the kernel is l_<name>. So no name a
// user picks can meet a keyword, macro or built-in of a device language (step, read_only,
// M_PI), or a name of the generated code.
inline std::string entry_name(const ir::kernel& k) { return "pl_kernel_" + k.name; }
// What a kernel from source's C function is called in the generated source: a macro renames the
// user's name around their source, so that a name OpenCL C or CUDA takes (kernel, half, M_PI)
// meets no keyword, built-in or macro of theirs.
inline std::string raw_function_name(const ir::kernel& k) { return "pl_fn_" + k.name; }

// Whether an argument of k moves as vectors under vectors_across_workgroups: a direct one, whose
// consecutive elements' values lie side by side, of a type every dialect has vectors of. Not an
// INC, MIN or MAX argument of a kernel from source: its C function gets a private copy starting
// at the identity (0, or an infinity), which the one-element path keeps to; the stored value
// would give another rounding (and a fraction added to an int another result).
inline bool moves_as_vectors(const ir::kernel& k, const ir::param& p) {
  const bool combines = p.mode == access::inc || p.mode == access::min || p.mode == access::max;
  return p.kind == arg_kind::direct && p.type != ir::scalar_type::boolean && !(combines && !k.raw_source.empty());
}

class emitter {
 public:
  emitter(const ir::kernel& k, const dialect& d, const strategy& s, const options& o = {})
      : k_(k),
        d_(d),
        strategy_(s),
        checked_(checks_indices(k, o)),
        writes_(o.writes),
        colored_(o.writes == conflicts::colors),
        dats_(o.dats) {}

  std::string emit() {
    source_writer kernel;
    kernel_definition(kernel);

    source_writer out;
    out.line("// parloop kernel '{}' in {}, generated {}", k_.name, d_.name(),
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

  // What the emitted source needs of the device (known once emit() has run).
  const features& needs() const { return features_; }

 private:
  // How the body reaches an argument: a private copy gathered before and scattered after the
  // body, a private partial result, or a constant read once per work-item. Direct arguments are
  // private copies too: through pointers into their buffers, which the compiler must assume may
  // meet, every access went to memory (Airfoil's update, docs/performance.md).
  enum class holding { private_copy, partial, constant };

  bool raw() const { return !k_.raw_source.empty(); }
  std::string local(ir::id l) const { return "l_" + k_.locals.at(l).name; }

  // Whether p's combining writes are staged in local memory (conflicts::blocks).
  bool staged(const ir::param& p) const {
    return writes_ == conflicts::blocks && (p.kind == arg_kind::indirect || p.kind == arg_kind::whole_map) &&
           (p.mode == access::inc || p.mode == access::min || p.mode == access::max);
  }

  holding holding_of(const ir::param& p) const {
    if (is_global_reduction(p)) return holding::partial;
    // A global constant is read into registers once per work-item, not once per element.
    if (p.kind == arg_kind::global) return holding::constant;
    return holding::private_copy;
  }

  // Whether a private copy starts at its mode's identity and is combined with the data when
  // scattered: INC, MIN and MAX through a map, and a source kernel's (its C function is handed
  // a fresh private result, the host's likewise). A traced kernel's direct argument starts from
  // its value and is stored back, as the host updates it in place: the same rounding.
  bool starts_at_identity(const ir::param& p) const {
    const bool combines = p.mode == access::inc || p.mode == access::min || p.mode == access::max;
    return combines && (p.kind != arg_kind::direct || raw());
  }

  std::string_view type(ir::scalar_type t) {
    if (t == ir::scalar_type::float64) features_.fp64 = true;
    return d_.type(t);
  }
  std::string_view index_type() { return type(ir::scalar_type::int64); }

  std::string floating_literal(ir::scalar_type t, double v) {
    if (std::isnan(v)) return d_.not_a_number(t);
    if (std::isinf(v)) return d_.infinity(t, v < 0);
    std::string s = t == ir::scalar_type::float32 ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return t == ir::scalar_type::float32 ? s + "f" : s;
  }

  std::string literal(ir::scalar_type t, std::int64_t i, double f) {
    switch (t) {
      case ir::scalar_type::boolean: return i != 0 ? "true" : "false";
      case ir::scalar_type::int32: return i == -2147483648LL ? "(-2147483647 - 1)" : std::to_string(i);
      case ir::scalar_type::int64: return d_.int64_literal(i);
      case ir::scalar_type::float32:
      case ir::scalar_type::float64: type(t); return floating_literal(t, f);
    }
    return "?";
  }

  // The start value of a private INC, MIN or MAX result.
  std::string identity(access mode, ir::scalar_type t) {
    if (mode == access::inc) return literal(t, 0, 0.0);
    const bool lowest = mode == access::max;
    switch (t) {
      case ir::scalar_type::boolean:
      case ir::scalar_type::int32: return literal(t, lowest ? -2147483648LL : 2147483647LL, 0.0);
      case ir::scalar_type::int64:
        return literal(t, lowest ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max(),
                       0.0);
      case ir::scalar_type::float32:
      case ir::scalar_type::float64: type(t); return d_.infinity(t, lowest);
    }
    return "?";
  }

  std::string minmax_call(ir::op o, ir::scalar_type t, const std::string& a, const std::string& b) {
    const ir::scalar_type ht = t == ir::scalar_type::boolean ? ir::scalar_type::int32 : t;
    minmax_.insert({o, ht});
    type(ht);
    return fmt::format("pl_{}_{}({}, {})", ir::op_name(o), type_tag(ht), a, b);
  }

  std::string converted(ir::id e, ir::scalar_type to) {
    const std::string s = expr(e);
    return k_.exprs[e].type == to ? s : fmt::format("({}){}", type(to), s);
  }

  std::string expr(ir::id i) {
    const ir::expr& e = k_.exprs.at(i);
    switch (e.kind) {
      case ir::expr_kind::literal: return literal(e.type, e.ival, e.fval);
      case ir::expr_kind::element: {
        const ir::param& p = k_.params.at(e.a);
        std::string place = fmt::format("arg{}", e.a);
        if (e.b != ir::no_id) place += fmt::format("[{}]", index(e.b, static_cast<int>(e.a), p.arity, true));
        return place + fmt::format("[{}]", index(e.c, static_cast<int>(e.a), p.dim, false));
      }
      case ir::expr_kind::local: return local(e.a);
      case ir::expr_kind::unary: type(e.type); return fmt::format("({}{})", ir::op_name(e.o), expr(e.a));
      case ir::expr_kind::binary:
        type(e.type);
        return fmt::format("({} {} {})", expr(e.a), ir::op_name(e.o), expr(e.b));
      case ir::expr_kind::call:
        if (e.o == ir::op::min || e.o == ir::op::max) return minmax_call(e.o, e.type, expr(e.a), expr(e.b));
        // Math functions take their result type: sqrt of an int is sqrt of a double, as in C++.
        if (e.b == ir::no_id) return fmt::format("{}({})", d_.math(e.o, e.type), converted(e.a, e.type));
        return fmt::format("{}({}, {})", d_.math(e.o, e.type), converted(e.a, e.type), converted(e.b, e.type));
      case ir::expr_kind::select:
        return fmt::format("({} ? {} : {})", expr(e.a), converted(e.b, e.type), converted(e.c, e.type));
      case ir::expr_kind::cast: return fmt::format("(({}){})", type(e.type), expr(e.a));
    }
    return "?";
  }

  // A component or slot index. A constant one was checked while tracing; a computed one, where
  // checks are on, goes through pl_checked_index: out of [0, bound) it records the first
  // violation for the host (exec/index_errors.hpp) and gives 0, so nothing outside the
  // argument is touched.
  std::string index(ir::id i, int param, int bound, bool slot) {
    if (!checked_ || k_.exprs[i].kind == ir::expr_kind::literal) return expr(i);
    return fmt::format("pl_checked_index({}, {}, {}, {}, pl_index_errors)", value(i), bound, index_site(param, slot),
                       kernel_tag(k_.name));
  }

  // A statement's right-hand side needs no outer parentheses.
  std::string value(ir::id i) {
    std::string s = expr(i);
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
    int depth = 0;
    for (std::size_t c = 0; c + 1 < s.size(); ++c) {
      depth += s[c] == '(' ? 1 : s[c] == ')' ? -1 : 0;
      if (depth == 0) return s;  // the first parenthesis closes before the end
    }
    return s.substr(1, s.size() - 2);
  }

  void block(source_writer& w, ir::id b) {
    for (const ir::id si : k_.blocks.at(b).stmts) statement(w, k_.stmts[si]);
  }

  void statement(source_writer& w, const ir::stmt& s) {
    switch (s.kind) {
      case ir::stmt_kind::let:
        w.line("{} {} = {};", type(k_.locals[s.target].type), local(s.target), value(s.value));
        return;
      case ir::stmt_kind::assign: w.line("{} = {};", expr(s.target), value(s.value)); return;
      case ir::stmt_kind::update:
        if (s.o == ir::op::min || s.o == ir::op::max) {
          const ir::scalar_type t = ir::promote(k_.exprs[s.target].type, k_.exprs[s.value].type);
          const std::string target = expr(s.target);
          w.line("{} = {};", target, minmax_call(s.o, t, target, value(s.value)));
        } else {
          w.line("{} {}= {};", expr(s.target), ir::op_name(s.o), value(s.value));
        }
        return;
      case ir::stmt_kind::if_:
        w.open("if ({})", value(s.value));
        block(w, s.block);
        if (s.else_block != ir::no_id) {
          w.reopen("else");
          block(w, s.else_block);
        }
        w.close();
        return;
      case ir::stmt_kind::for_: {
        // The bound is read once, before the first pass, as on the host: a body that changes
        // a local in it does not change how often the loop runs.
        const std::string v = local(s.target);
        const std::string end = fmt::format("pl_bound{}", s.target);
        w.open("for ({} {} = {}, {} = {}; {} < {}; ++{})", type(k_.locals[s.target].type), v, value(s.value), end,
               value(s.hi), v, end, v);
        block(w, s.block);
        w.close();
        return;
      }
    }
  }

  bool soa(const ir::param& p) const { return by_components(p, options{.dats = dats_}); }

  // Where element `at` of p's values starts: components apart by the stride kept by components,
  // else dim values per element.
  std::string element_start(const ir::param& p, const std::string& element) const {
    return soa(p) ? element : fmt::format("{} * {}", element, p.dim);
  }

  // Component k of p's values at `at` (an element_start). The stride's multiple is 64-bit: a
  // dat of many components on a large set goes past the int range.
  std::string dat_value(const ir::param& p, const std::string& at, const std::string& k) {
    if (!soa(p)) return fmt::format("data{}[{} + {}]", p.data, at, k);
    if (k == "0") return fmt::format("data{}[{}]", p.data, at);
    return fmt::format("data{}[{} + ({})data{}_stride * {}]", p.data, at, index_type(), p.data, k);
  }

  // `statement` for each component k: one line for dim 1, else a loop over pl_k.
  template <class F>
  void for_components(source_writer& w, int dim, F&& statement_for) {
    if (dim == 1) w.line("{}", statement_for("0"));
    else w.line("for (int pl_k = 0; pl_k < {}; ++pl_k) {}", dim, statement_for("pl_k"));
  }

  // `statement` for each (slot j, component k) of a private copy: a whole-map argument
  // loops over its slots with the slot's position in the dat as pl_at.
  template <class F>
  void for_elements(source_writer& w, std::size_t i, const ir::param& p, F&& statement_for, bool with_data = true) {
    const std::string arg = fmt::format("arg{}", i);
    if (p.kind != arg_kind::whole_map) {
      for_components(w, p.dim, [&](const std::string& k) {
        const std::string data =
            p.kind == arg_kind::global ? fmt::format("data{}[{}]", p.data, k) : dat_value(p, arg + "_at", k);
        return statement_for(fmt::format("{}[{}]", arg, k), data);
      });
      return;
    }
    w.open("for (int pl_j = 0; pl_j < {}; ++pl_j)", p.arity);
    if (with_data) {
      w.line("const {} pl_at = {};", index_type(),
             element_start(p, fmt::format("({})map{}[({})pl_e * {} + pl_j]", index_type(), p.map, index_type(), p.arity)));
    }
    for_components(w, p.dim, [&](const std::string& k) {
      const std::string mine = raw() ? fmt::format("{}[pl_j * {} + {}]", arg, p.dim, k) : fmt::format("{}[pl_j][{}]", arg, k);
      return statement_for(mine, dat_value(p, "pl_at", k));
    });
    w.close();
  }

  void declare_private(source_writer& w, std::size_t i, const ir::param& p) {
    if (p.kind == arg_kind::whole_map) {
      if (raw()) w.line("{} arg{}[{}];", type(p.type), i, p.arity * p.dim);
      else w.line("{} arg{}[{}][{}];", type(p.type), i, p.arity, p.dim);
    } else {
      w.line("{} arg{}[{}];", type(p.type), i, p.dim);
    }
  }

  // Before the body: pointers, private copies and their old values. A staged argument's private
  // copy is the block's (block_elements).
  void gather(source_writer& w, std::size_t i, const ir::param& p) {
    const holding h = holding_of(p);
    if (h == holding::partial || h == holding::constant || staged(p)) return;
    if (p.kind == arg_kind::indirect) {
      w.line("const {} arg{}_at = {};", index_type(), i,
             element_start(p, fmt::format("({})map{}[({})pl_e * {} + {}]", index_type(), p.map, index_type(), p.arity,
                                          p.slot)));
    } else if (p.kind == arg_kind::direct) {
      w.line("const {} arg{}_at = {};", index_type(), i, element_start(p, fmt::format("({})pl_e", index_type())));
    }
    declare_private(w, i, p);
    // Every other copy starts from the old value (WRITE too, unless the body assigns every
    // component before reading any: it may leave components unwritten, which must keep their
    // values).
    if (starts_at_identity(p)) {
      const std::string start = identity(p.mode, p.type);
      for_elements(
          w, i, p, [&](const std::string& mine, const std::string&) { return fmt::format("{} = {};", mine, start); },
          false);
    } else if (p.mode == access::write && p.kind != arg_kind::whole_map &&
               ir::written_before_read(k_, static_cast<ir::id>(i))) {
      // Every component is assigned before it is read: the old values are never seen. (A whole
      // map's slots are not told apart by written_before_read.)
    } else {
      for_elements(w, i, p, [](const std::string& mine, const std::string& data) { return fmt::format("{} = {};", mine, data); });
    }
  }

  // After the body: private copies go back to their buffers.
  void scatter(source_writer& w, std::size_t i, const ir::param& p) {
    if (holding_of(p) != holding::private_copy || p.mode == access::read || staged(p)) return;
    // Through a map several work-items can reach one element: INC, MIN and MAX combine
    // atomically, unless the loop runs a colour at a time, whose elements reach distinct targets.
    const bool shared = (p.kind == arg_kind::indirect || p.kind == arg_kind::whole_map) && !colored_;
    if (!starts_at_identity(p)) {
      for_elements(w, i, p, [](const std::string& mine, const std::string& data) { return fmt::format("{} = {};", data, mine); });
      return;
    }
    const atomic_op o = p.mode == access::inc ? atomic_op::add : p.mode == access::min ? atomic_op::min : atomic_op::max;
    for_elements(w, i, p, [&](const std::string& mine, const std::string& data) -> std::string {
      if (shared) {
        atomics_.insert({o, p.type});
        if (o != atomic_op::add && ir::is_floating(p.type)) minmax_.insert({o == atomic_op::min ? ir::op::min : ir::op::max, p.type});
        d_.atomic_features(o, p.type, features_);
        return fmt::format("pl_atomic_{}_{}(&{}, {});", atomic_name(o), type_tag(p.type), data, mine);
      }
      if (o == atomic_op::add) return fmt::format("{} += {};", data, mine);
      return fmt::format("{} = {};", data, minmax_call(o == atomic_op::min ? ir::op::min : ir::op::max, p.type, data, mine));
    });
  }

  // The parameters the wrapper passes: one pointer per argument, const for READ.
  std::string raw_parameters() {
    std::string out;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      out += fmt::format("{}{}{}* a{}", i == 0 ? "" : ", ", p.mode == access::read ? "const " : "", type(p.type), i);
    }
    return out;
  }

  void raw_call(source_writer& w) {
    std::string args;
    for (std::size_t i = 0; i < k_.params.size(); ++i) args += fmt::format("{}arg{}", i == 0 ? "" : ", ", i);
    w.line("{}({});", raw_function_name(k_), args);
  }

  void kernel_definition(source_writer& w) {
    std::string params = "const int pl_start, const int pl_end";
    for (const kernel_buffer& b : buffers(k_, options{.check_indices = checked_, .writes = writes_, .dats = dats_})) {
      type(b.type);  // a double buffer needs fp64, even if the body has no double literal
      switch (b.role) {
        case buffer_role::data: params += fmt::format(",\n    {} data{}", d_.buffer(b.type, b.is_const), b.index); break;
        case buffer_role::map: params += fmt::format(",\n    {} map{}", d_.buffer(b.type, true), b.index); break;
        case buffer_role::partials:
          params += fmt::format(",\n    {} arg{}_partials", d_.buffer(b.type, false), b.index);
          break;
        case buffer_role::groups_done: params += fmt::format(",\n    {} pl_groups_done", d_.buffer(b.type, false)); break;
        case buffer_role::index_errors:
          params += fmt::format(",\n    {} pl_index_errors", d_.buffer(b.type, false));
          break;
        case buffer_role::order: params += fmt::format(",\n    {} pl_order", d_.buffer(b.type, true)); break;
        case buffer_role::plan: params += fmt::format(",\n    {} pl_plan", d_.buffer(b.type, true)); break;
        case buffer_role::stride: params += fmt::format(",\n    const int data{}_stride", b.index); break;
      }
    }
    w.open("{}({})", d_.kernel_head(entry_name(k_)), params);
    // A two-level plan's work-items are places in their block.
    if (writes_ != conflicts::blocks) w.line("const {} pl_item = {};", index_type(), d_.work_item());
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      if (holding_of(p) != holding::constant) continue;
      declare_private(w, i, p);
      for_elements(w, i, p, [](const std::string& mine, const std::string& data) { return fmt::format("{} = {};", mine, data); });
    }
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      if (holding_of(p) != holding::partial) continue;
      declare_private(w, i, p);
      const std::string start = identity(p.mode, p.type);
      for_components(w, p.dim, [&](const std::string& k) { return fmt::format("arg{}[{}] = {};", i, k, start); });
    }
    if (writes_ == conflicts::blocks) block_elements(w);
    else elements(w);
    reduce_in_groups(w);
    w.close();
  }

  // One element pl_e: gather, body, scatter. An argument in `in_vectors` is the j-th element's
  // part of its private pl_vec array instead.
  void element(source_writer& w, const std::vector<bool>& in_vectors, int j) {
    const auto vectored = [&](std::size_t i) { return i < in_vectors.size() && in_vectors[i]; };
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      if (!vectored(i)) {
        gather(w, i, p);
        continue;
      }
      w.line("{}{}* const arg{} = pl_vec{} + {};", p.mode == access::read ? "const " : "", type(p.type), i, i, j * p.dim);
    }
    if (raw()) raw_call(w);
    else block(w, 0);
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      if (!vectored(i)) scatter(w, i, k_.params[i]);
    }
  }

  // vectors_across_workgroups: the work-item's `width` elements from pl_base, a multiple of
  // width. Where all of them are in the range, each direct argument's values for them, which lie
  // side by side, are loaded into the private pl_vec<N> as vectors (unless the body writes them
  // before reading them), each element runs on its part, and they are stored back as vectors
  // (unless READ). Where the range cuts them, the ones inside it run one at a time in place.
  // The two paths have their own copies of the body: with one shared copy, the compiler merged
  // the stores of both paths into the scalar ones.
  void vector_elements(source_writer& w, int width) {
    const std::string_view index = index_type();
    // Vectors are indexed from the buffer's start (by pl_slice), not reached through
    // pl_base's pointer: where the compiler can see that pl_base is even, it no longer trusts
    // the vector's alignment and stores (though not loads) one value at a time.
    w.line("const {} pl_slice = ({})pl_start / {} + pl_item;", index, index, width);
    w.line("const {} pl_base = pl_slice * {};", index, width);
    std::vector<bool> in_vectors(k_.params.size(), false);
    std::vector<std::size_t> loaded, stored;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      if (!moves_as_vectors(k_, p)) continue;
      in_vectors[i] = true;
      if (p.mode != access::write || !ir::written_before_read(k_, static_cast<ir::id>(i))) loaded.push_back(i);
      if (p.mode != access::read) stored.push_back(i);
    }
    // Only arguments reached through pl_e need it, and an unused variable is a warning.
    const auto uses_element = [&](const std::vector<bool>& vectored) {
      bool uses = false;
      for (std::size_t i = 0; i < k_.params.size(); ++i) {
        uses = uses || ((i >= vectored.size() || !vectored[i]) && k_.params[i].kind != arg_kind::global);
      }
      return uses;
    };
    // Each element's copy of the body; where the range cuts the work-item's elements, each
    // guarded by its own test (a loop over them took NVRTC half as long again as the whole
    // kernel without it).
    const auto each_element = [&](const std::vector<bool>& vectored, bool guarded) {
      for (int j = 0; j < width; ++j) {
        if (guarded) w.open("if ({})", in_range(j));
        else w.open("");
        if (uses_element(vectored)) w.line("const {} pl_e = pl_base + {};", index, j);
        element(w, vectored, j);
        w.close();
      }
    };
    w.open("if (pl_base >= pl_start && pl_base + {} <= pl_end)", width);
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      if (in_vectors[i]) w.line("{} pl_vec{}[{}];", type(k_.params[i].type), i, width * k_.params[i].dim);
    }
    move_vectors(w, loaded, width, true);
    each_element(in_vectors, false);
    move_vectors(w, stored, width, false);
    w.reopen("else");
    each_element({}, true);
    w.close();
  }

  // Whether the work-item's j-th element is in the range.
  static std::string in_range(int j) {
    const std::string e = j == 0 ? "pl_base" : fmt::format("pl_base + {}", j);
    return fmt::format("{} >= pl_start && {} < pl_end", e, e);
  }

  // Loads (or stores) the pl_vec arrays of `args` as vectors of up to 16 bytes: the work-item's
  // slice of width * dim values is a whole number of them, and buffers are aligned.
  void move_vectors(source_writer& w, const std::vector<std::size_t>& args, int width, bool load) {
    static constexpr char lane_names[] = "xyzw";
    for (const std::size_t i : args) {
      const ir::param& p = k_.params[i];
      const int lanes = std::min(width, 16 / static_cast<int>(ir::size_of(p.type)));
      const std::string vector = d_.vector_type(p.type, lanes);
      const std::string data = fmt::format("data{}", p.data);
      // By elements, the slice's width * dim values lie together; by components, each
      // component's width values do, a stride apart (a whole number of vectors: soa_alignment).
      const int components = soa(p) ? p.dim : 1;
      const int vectors = width * p.dim / lanes / components;
      for (int k = 0; k < components; ++k) {
        for (int m = 0; m < vectors; ++m) {
          std::string at = vectors == 1 ? "pl_slice" : fmt::format("pl_slice * {}", vectors);
          if (m > 0) at += fmt::format(" + {}", m);
          if (k > 0) at += fmt::format(" + ({})(data{}_stride / {}) * {}", index_type(), p.data, lanes, k);
          std::string lanes_moved;
          for (int c = 0; c < lanes; ++c) {
            const int mine = soa(p) ? (m * lanes + c) * p.dim + k : m * lanes + c;
            lanes_moved += load ? fmt::format(" pl_vec{}[{}] = pl_v.{};", i, mine, lane_names[c])
                                : fmt::format(" pl_v.{} = pl_vec{}[{}];", lane_names[c], i, mine);
          }
          if (load) w.line("{{ const {} pl_v = {};{} }}", vector, d_.load_vector(p.type, lanes, data, at), lanes_moved);
          else w.line("{{ {} pl_v;{} {} }}", vector, lanes_moved, d_.store_vector(p.type, lanes, "pl_v", data, at));
        }
      }
    }
  }

  // Global reductions. Each work-group combines its work-items' partials (group_tree) and
  // its first work-item stores the group's partial at arg<N>_partials[group * dim + k]. The last
  // group to do so (a ticket from an atomic counter) combines every group's partials, in group
  // order, with the global's value on the device and resets the counter: the global stays on
  // the device, and nothing waits for the launch. Every work-item reaches every barrier.
  void reduce_in_groups(source_writer& w) {
    std::vector<std::size_t> reductions;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      if (holding_of(k_.params[i]) == holding::partial) reductions.push_back(i);
    }
    if (reductions.empty()) return;
    const int block = parloop::detail::block_size(strategy_);
    // A two-level plan's kernel has it already.
    if (writes_ != conflicts::blocks) w.line("const int pl_local = {};", d_.local_id());
    for (const std::size_t i : reductions) {
      const ir::param& p = k_.params[i];
      const int slots = by_warps(block) ? block / d_.warp_size() : block;
      w.line("{};", d_.local_array(type(p.type), group_array(i), slots * p.dim));
      features_.group_memory += static_cast<std::size_t>(slots * p.dim) * ir::size_of(p.type);
      group_tree(w, i, p, block);
      w.open("if (pl_local == 0)");
      for_components(w, p.dim, [&](const std::string& k) {
        const std::string slot = p.dim == 1 ? std::string(d_.group_id())
                                            : fmt::format("({}){} * {} + {}", index_type(), d_.group_id(), p.dim, k);
        return fmt::format("arg{}_partials[{}] = {};", i, slot, in_group(i, p, "0", k));
      });
      w.close();
    }
    w.line("{};", d_.local_array("int", "pl_last_group", 1));
    features_.group_memory += sizeof(std::int32_t);
    w.open("if (pl_local == 0)");
    w.line("{}", d_.global_fence());
    w.line("pl_last_group[0] = {} == (int)({} - 1);", d_.atomic_ticket("pl_groups_done"), d_.groups());
    w.close();
    w.line("{}", d_.barrier_with_global());
    w.open("if (pl_last_group[0])");
    w.line("const {} pl_groups = {};", index_type(), d_.groups());
    for (const std::size_t i : reductions) {
      const ir::param& p = k_.params[i];
      const std::string start = identity(p.mode, p.type);
      for_components(w, p.dim, [&](const std::string& k) { return fmt::format("arg{}[{}] = {};", i, k, start); });
      w.open("for ({} pl_g = pl_local; pl_g < pl_groups; pl_g += {})", index_type(), block);
      const std::string partials = fmt::format("(({})arg{}_partials)", d_.volatile_pointer(p.type), i);
      for_components(w, p.dim, [&](const std::string& k) {
        const std::string at = p.dim == 1 ? "pl_g" : fmt::format("pl_g * {} + {}", p.dim, k);
        return combine(p, fmt::format("arg{}[{}]", i, k), fmt::format("{}[{}]", partials, at));
      });
      w.close();
      group_tree(w, i, p, block);
      w.open("if (pl_local == 0)");
      for_components(w, p.dim, [&](const std::string& k) {
        return combine(p, fmt::format("data{}[{}]", p.data, k), in_group(i, p, "0", k));
      });
      w.close();
    }
    w.line("if (pl_local == 0) *pl_groups_done = 0;");
    w.close();
  }

  // `target = target op value` for a reduction's mode.
  std::string combine(const ir::param& p, const std::string& target, const std::string& value) {
    if (p.mode == access::inc) return fmt::format("{} += {};", target, value);
    return fmt::format("{} = {};", target,
                       minmax_call(p.mode == access::min ? ir::op::min : ir::op::max, p.type, target, value));
  }

  static std::string group_array(std::size_t i) { return fmt::format("pl_group{}", i); }

  // Component k of work-item `item`'s value in the group's local array of reduction i.
  static std::string in_group(std::size_t i, const ir::param& p, const std::string& item, const std::string& k) {
    if (p.dim == 1) return fmt::format("{}[{}]", group_array(i), item);
    if (item == "0") return fmt::format("{}[{}]", group_array(i), k);
    return fmt::format("{}[{} * {} + {}]", group_array(i), item, p.dim, k);
  }

  // Whether a group combines its values warp by warp in registers: where the dialect has warps
  // and the block is whole warps (a missing lane cannot take part in a shuffle).
  bool by_warps(int block) const {
    const int warp = d_.warp_size();
    return warp > 0 && block >= warp && block % warp == 0 && block / warp <= warp;
  }

  // Combines the group's arg<i> values; the result is then at work-item 0's place of the
  // group's local array.
  void group_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
    if (by_warps(block)) warp_tree(w, i, p, block);
    else local_tree(w, i, p, block);
  }

  // Each work-item's arg<i> into the local array, combined as a tree (pl_half from the largest
  // power of two below the block: any block size).
  void local_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
    for_components(w, p.dim, [&](const std::string& k) {
      return fmt::format("{} = arg{}[{}];", in_group(i, p, "pl_local", k), i, k);
    });
    int half = 1;
    while (half * 2 < block) half *= 2;
    w.line("{}", d_.barrier());
    w.open("for (int pl_half = {}; pl_half > 0; pl_half /= 2)", block > 1 ? half : 0);
    w.open("if (pl_local < pl_half && pl_local + pl_half < {})", block);
    for_components(w, p.dim, [&](const std::string& k) {
      return combine(p, in_group(i, p, "pl_local", k), in_group(i, p, "(pl_local + pl_half)", k));
    });
    w.close();
    w.line("{}", d_.barrier());
    w.close();
  }

  // Each warp combines its lanes' arg<i> by shuffles, its first lane puts the result at the
  // warp's place in the local array, and the first warp combines those: one barrier, and a
  // local array of one value per warp.
  void warp_tree(source_writer& w, std::size_t i, const ir::param& p, int block) {
    const int warp = d_.warp_size();
    const auto shuffled = [&] {
      w.open("for (int pl_delta = {}; pl_delta > 0; pl_delta /= 2)", warp / 2);
      for_components(w, p.dim, [&](const std::string& k) {
        const std::string mine = fmt::format("arg{}[{}]", i, k);
        return combine(p, mine, d_.shuffle_down(mine, "pl_delta"));
      });
      w.close();
    };
    shuffled();
    w.open("if (pl_local % {} == 0)", warp);
    for_components(w, p.dim, [&](const std::string& k) {
      return fmt::format("{} = arg{}[{}];", in_group(i, p, fmt::format("(pl_local / {})", warp), k), i, k);
    });
    w.close();
    w.line("{}", d_.barrier());
    w.open("if (pl_local < {})", warp);
    const std::string start = identity(p.mode, p.type);
    for_components(w, p.dim, [&](const std::string& k) {
      return fmt::format("arg{}[{}] = pl_local < {} ? {} : {};", i, k, block / warp, in_group(i, p, "pl_local", k),
                         start);
    });
    shuffled();
    w.open("if (pl_local == 0)");
    for_components(w, p.dim, [&](const std::string& k) { return fmt::format("{} = arg{}[{}];", in_group(i, p, "0", k), i, k); });
    w.close();
    w.close();
  }

  // Runs element() once per element pl_e of this work-item, as the strategy assigns them: the
  // range's positions are elements, or, in a coloured loop, positions pl_p in pl_order, which
  // holds the colour's elements. Both are 64-bit, so that no step overflows near the end of the
  // int range.
  void elements(source_writer& w) {
    const std::string_view index = index_type();
    const std::string_view at = colored_ ? "pl_p" : "pl_e";
    std::visit(
        [&](const auto& v) {
          using S = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<S, vectors_across_workgroups>) {
            vector_elements(w, v.width);
            return;
          } else if constexpr (std::is_same_v<S, split_n_across_workgroups>) {
            w.line("const {} {} = ({})pl_start + pl_item;", index, at, index);
            w.open("if ({} < pl_end)", at);
          } else if constexpr (std::is_same_v<S, grid_stride>) {
            w.open("for ({} {} = ({})pl_start + pl_item; {} < pl_end; {} += {})", index, at, index, at, at, d_.work_items());
          } else {
            w.line("const {} pl_first = ({})pl_start + ({})pl_item * {};", index, index, index, v.per_item);
            w.line("const {} pl_last = pl_first + {} < pl_end ? pl_first + {} : pl_end;", index, v.per_item, v.per_item);
            w.open("for ({} {} = pl_first; {} < pl_last; ++{})", index, at, at, at);
          }
          if (colored_) w.line("const {} pl_e = pl_order[pl_p];", index);
          element(w, {}, 0);
          w.close();
        },
        strategy_);
  }

  // The staged arguments of a two-level plan, grouped as exec/colors.hpp groups them: each
  // distinct (dat, map, mode), in parameter order, with the slots its arguments use.
  struct stage_group {
    const ir::param* first;
    int slots = 0;
    std::uint64_t slot_bits = 0;
    std::vector<std::size_t> params;
  };
  std::vector<stage_group> stage_groups() const {
    std::vector<stage_group> groups;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const ir::param& p = k_.params[i];
      if (!staged(p)) continue;
      auto g = std::find_if(groups.begin(), groups.end(), [&](const stage_group& x) {
        return x.first->data == p.data && x.first->map == p.map && x.first->mode == p.mode;
      });
      if (g == groups.end()) g = groups.insert(groups.end(), stage_group{&p, 0, 0, {}});
      // Arities over 64 are refused before a plan's kernel is generated (exec/colors.hpp).
      for (int j = 0; j < p.arity && j < 64; ++j) {
        if (p.kind == arg_kind::whole_map || j == p.slot) g->slot_bits |= std::uint64_t{1} << j;
      }
      g->params.push_back(i);
    }
    for (stage_group& g : groups) g.slots = std::popcount(g.slot_bits);
    return groups;
  }

  // conflicts::blocks, OP2's two-level plan (core/block_plan.hpp): the work-group runs block
  // pl_block, the launch's range being positions in the plan's block order, a work-item per
  // element. Each staged group has the block's copy of its distinct targets in local memory
  // (at most block * slots of them), starting at the identity. The elements run the body with
  // private staged copies; then the block's element colours take turns adding them into the
  // local copy (a barrier between turns: no two elements of a colour share a target); then the
  // work-group combines the local copy with the dat, plainly, since no other block of this
  // launch reaches those targets.
  void block_elements(source_writer& w) {
    using namespace parloop::detail;  // the plan's layout
    const std::string_view index = index_type();
    const int block = parloop::detail::block_size(strategy_);
    const std::vector<stage_group> groups = stage_groups();
    w.line("const int pl_local = {};", d_.local_id());
    w.line("const int pl_block = pl_plan[pl_plan[{}] + pl_start + (int){}];", static_cast<int>(plan_block_order),
           d_.group_id());
    w.line("const int pl_info = pl_plan[{}] + pl_block * pl_plan[{}];", static_cast<int>(plan_block_info),
           static_cast<int>(plan_info_stride));
    w.line("const int pl_count = pl_plan[pl_info + {}];", info_count);
    w.line("const {} pl_first = ({})pl_plan[pl_info + {}];", index, index, info_first);
    w.line("const {} pl_me = pl_first - ({})pl_plan[{}] + pl_local;", index, index, static_cast<int>(plan_start));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const ir::param& p = *groups[g].first;
      const int size = block * groups[g].slots * p.dim;
      w.line("{};", d_.local_array(type(p.type), fmt::format("pl_stage{}", g), size));
      features_.group_memory += static_cast<std::size_t>(size) * ir::size_of(p.type);
      w.line("const int pl_targets{} = pl_plan[pl_info + {}];", g, info_targets_count(static_cast<int>(g)));
      w.line("for (int pl_t = pl_local; pl_t < pl_targets{} * {}; pl_t += {}) pl_stage{}[pl_t] = {};", g, p.dim, block, g,
             identity(p.mode, p.type));
    }
    for (const stage_group& g : groups) {
      for (const std::size_t i : g.params) {
        const ir::param& p = k_.params[i];
        declare_private(w, i, p);
        const std::string start = identity(p.mode, p.type);
        for_elements(
            w, i, p, [&](const std::string& mine, const std::string&) { return fmt::format("{} = {};", mine, start); },
            false);
      }
    }
    w.line("{}", d_.barrier());
    w.open("if (pl_local < pl_count)");
    // Only arguments reached through pl_e need it, and an unused variable is a warning.
    if (std::any_of(k_.params.begin(), k_.params.end(),
                    [&](const ir::param& p) { return p.kind != arg_kind::global && !staged(p); })) {
      w.line("const {} pl_e = pl_first + pl_local;", index);
    }
    element(w, {}, 0);
    w.close();
    w.line("const int pl_color = pl_local < pl_count ? pl_plan[pl_plan[{}] + pl_me] : -1;",
           static_cast<int>(plan_thread_color));
    w.open("for (int pl_c = 0; pl_c < pl_plan[pl_info + {}]; ++pl_c)", info_colors);
    w.open("if (pl_color == pl_c)");
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (const std::size_t i : groups[g].params) {
        const ir::param& p = k_.params[i];
        const std::string stage = fmt::format("pl_stage{}", g);
        const auto add = [&](const std::string& slot, const auto& mine_of) {
          w.line("const int pl_place = pl_plan[pl_plan[{}] + pl_me * {} + {}];", plan_local(static_cast<int>(g)), p.arity, slot);
          for_components(w, p.dim, [&](const std::string& k) {
            return combine(p, fmt::format("{}[pl_place * {} + {}]", stage, p.dim, k), mine_of(k));
          });
        };
        if (p.kind == arg_kind::whole_map) {
          w.open("for (int pl_j = 0; pl_j < {}; ++pl_j)", p.arity);
          add("pl_j", [&](const std::string& k) {
            return raw() ? fmt::format("arg{}[pl_j * {} + {}]", i, p.dim, k) : fmt::format("arg{}[pl_j][{}]", i, k);
          });
          w.close();
        } else {
          w.open("");
          add(std::to_string(p.slot), [&](const std::string& k) { return fmt::format("arg{}[{}]", i, k); });
          w.close();
        }
      }
    }
    w.close();
    w.line("{}", d_.barrier());
    w.close();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const ir::param& p = *groups[g].first;
      // A dat combined into through two maps is two groups whose targets may meet: the first's
      // stores are done (and seen) before the second's begin.
      const bool after_same_dat = std::any_of(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(g),
                                              [&](const stage_group& earlier) { return earlier.first->data == p.data; });
      if (after_same_dat) w.line("{}", d_.barrier_with_global());
      w.open("for (int pl_t = pl_local; pl_t < pl_targets{}; pl_t += {})", g, block);
      w.line("const {} pl_at = {};", index,
             element_start(p, fmt::format("({})pl_plan[pl_plan[{}] + pl_plan[pl_info + {}] + pl_t]", index,
                                          plan_targets(static_cast<int>(g)), info_targets_start(static_cast<int>(g)))));
      for_components(w, p.dim, [&](const std::string& k) {
        return combine(p, dat_value(p, "pl_at", k), fmt::format("pl_stage{}[pl_t * {} + {}]", g, p.dim, k));
      });
      w.close();
    }
  }

  // Helpers are guarded so that several generated sources can be compiled as one.
  void helpers(source_writer& w) {
    const auto guarded = [&](const std::string& name, auto&& define) {
      w.line("#ifndef {}", name);
      w.line("#define {}", name);
      define();
      w.line("#endif");
    };
    for (const auto& [o, t] : minmax_) {
      const std::string name = fmt::format("pl_{}_{}", ir::op_name(o), type_tag(t));
      guarded("PL_HELPER_" + name, [&] {
        w.line("{} {} {}({} a, {} b) {{ return {}; }}", d_.helper_qualifiers(), d_.type(t), name, d_.type(t), d_.type(t),
               o == ir::op::min ? "b < a ? b : a" : "a < b ? b : a");
      });
    }
    for (const auto& [o, t] : atomics_) {
      guarded(fmt::format("PL_HELPER_pl_atomic_{}_{}", atomic_name(o), type_tag(t)), [&] { d_.atomic_helper(w, o, t); });
    }
    if (checked_) guarded("PL_HELPER_pl_checked_index", [&] { checked_index_helper(w); });
  }

  void checked_index_helper(source_writer& w) {
    const std::string errors = d_.buffer(ir::scalar_type::int32, false);
    w.open("{} int pl_checked_index({} pl_i, int pl_bound, int pl_site, int pl_kernel, {} pl_errors)",
           d_.helper_qualifiers(), index_type(), errors);
    w.line("if (pl_i >= 0 && pl_i < pl_bound) return (int)pl_i;");
    w.open("if ({} == 0)", d_.atomic_compare_exchange("pl_errors", "0", "pl_site"));
    w.line("pl_errors[{}] = (int)pl_i;", static_cast<int>(error_index_low));
    w.line("pl_errors[{}] = (int)(pl_i >> 32);", static_cast<int>(error_index_high));
    w.line("pl_errors[{}] = pl_bound;", static_cast<int>(error_bound));
    w.line("pl_errors[{}] = pl_kernel;", static_cast<int>(error_kernel));
    w.close();
    w.line("return 0;");
    w.close();
  }

  const ir::kernel& k_;
  const dialect& d_;
  const strategy& strategy_;
  const bool checked_;
  const conflicts writes_;
  const bool colored_;
  const dat_layout dats_;
  features features_;
  std::set<std::pair<ir::op, ir::scalar_type>> minmax_;
  std::set<std::pair<atomic_op, ir::scalar_type>> atomics_;
};

}  // namespace parloop::codegen
