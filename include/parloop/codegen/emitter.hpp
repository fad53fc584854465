// SPDX-License-Identifier: MIT
// Writes a kernel's IR as device source in a dialect, for a launch strategy: the entry
// point takes start, end and the buffers of ir::buffers(); for each of its elements a
// work-item gathers its arguments into private arrays, runs the body, and scatters
// them back by access mode. This is the emitter's state and its parts' interface; the parts
// are the emit_*.hpp files beside it, and codegen/emit.hpp brings them together.
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

#include "parloop/config.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/codegen/writer.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/kernel.hpp"
#include "parloop/ir/layout.hpp"
#include "parloop/ir/written_first.hpp"
#include "parloop/order/block_plan.hpp"

PARLOOP_COLD_BEGIN

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

// Whether a kernel from source's C function gets a fresh private result (0 for INC, an infinity
// for MIN and MAX) for a direct INC, MIN or MAX argument, as pl::kernel_from_source's does on the
// host. An OP2 kernel (one whose parameters' types are known) gets the element's value, as OP2
// hands it the element's own storage -- and its applications read it after incrementing it.
inline bool fresh_direct_results(const ir::kernel& k) { return !k.raw_source.empty() && k.raw_params.empty(); }

// Whether an argument of k moves as vectors under vectors_across_workgroups: a direct one, whose
// consecutive elements' values lie side by side, of a type every dialect has vectors of. Not an
// INC, MIN or MAX argument of a kernel from source: its C function gets a private copy starting
// at the identity (0, or an infinity), which the one-element path keeps to; the stored value
// would give another rounding (and a fraction added to an int another result).
// Nothing in a loop over an extruded set: a layered argument's elements are a column's cells, not
// side by side, and a base-set one is its column's, which a cell per work-item shares.
inline bool moves_as_vectors(const ir::kernel& k, const ir::param& p) {
  return k.extrusion.layers == 0 && p.kind == arg_kind::direct && p.type != scalar_type::boolean &&
         !(is_combining(p.mode) && fresh_direct_results(k));
}

// Whether a loop over an extruded set runs a cell per work-item, the layer fastest, rather than
// a column per work-item: under the strategies of one element at a time per work-item, consecutive
// elements on consecutive work-items (split_n_across_workgroups, grid_stride: a GPU's; here an
// element is a cell), where no two cells of a column can race -- nothing written through a map
// but increments by atomics, no dat of the base set (a column's, shared by its cells) modified. A
// column's consecutive cells then go to consecutive work-items, whose loads of a dat on the
// extruded set are coalesced; a column per work-item reads its map row once.
inline bool runs_cells(const ir::kernel& k, const strategy& s, conflicts writes) {
  const ir::extrusion& x = k.extrusion;
  if (x.layers == 0 || x.count == 0) return false;
  if (!std::holds_alternative<split_n_across_workgroups>(s) && !std::holds_alternative<grid_stride>(s)) return false;
  return std::none_of(k.params.begin(), k.params.end(), [&](const ir::param& p) {
    if (p.kind == arg_kind::direct) return !p.layered && is_modified(p.mode);
    if (!through_map(p.kind)) return false;
    return p.mode == access::write || p.mode == access::rw || (is_combining(p.mode) && writes != conflicts::atomics);
  });
}

class emitter {
 public:
  emitter(const ir::kernel& k, const dialect& d, const strategy& s, const ir::source_options& o = {})
      : k_(k),
        d_(d),
        strategy_(s),
        checked_(ir::checks_indices(k, o)),
        writes_(o.writes),
        colored_(o.writes == conflicts::colors),
        cells_(runs_cells(k, s, o.writes)),
        dats_(o.dats) {}

  // The whole source: helpers, the C source of a kernel from source, the entry point.
  std::string emit();

  // What the emitted source needs of the device (known once emit() has run).
  const features& needs() const { return features_; }

 private:
  // How the body reaches an argument: a private copy gathered before and scattered after the
  // body, a private partial result, or a constant read once per work-item. Direct arguments are
  // private copies too: through pointers into their buffers, which the compiler must assume may
  // meet, every access would go to memory (docs/performance.md, Airfoil on the GPU).
  enum class holding { private_copy, partial, constant };

  bool raw() const { return !k_.raw_source.empty(); }
  std::string local(ir::id l) const { return "l_" + k_.locals.at(l).name; }

  // Whether p's combining writes are staged in local memory (conflicts::blocks).
  bool staged(const ir::param& p) const { return writes_ == conflicts::blocks && combines_through_map(p.mode, p.kind); }

  holding holding_of(const ir::param& p) const {
    if (ir::is_global_reduction(p)) return holding::partial;
    // A global constant is read into registers once per work-item, not once per element.
    if (p.kind == arg_kind::global) return holding::constant;
    return holding::private_copy;
  }

  // Whether a private copy starts at its mode's identity and is combined with the data when
  // scattered: INC, MIN and MAX through a map, and a source kernel's (its C function is handed
  // a fresh private result, the host's likewise). A traced kernel's direct argument starts from
  // its value and is stored back, as the host updates it in place: the same rounding.
  bool starts_at_identity(const ir::param& p) const {
    return is_combining(p.mode) && (p.kind != arg_kind::direct || fresh_direct_results(k_));
  }

  // Expressions and statements (emit_expressions.hpp). type() notes what a type needs of the
  // device (fp64), so every type written goes through it.
  std::string_view type(scalar_type t);
  std::string_view index_type() { return type(scalar_type::int64); }
  std::string floating_literal(scalar_type t, double v);
  std::string literal(scalar_type t, std::int64_t i, double f);
  std::string identity(access mode, scalar_type t);
  std::string minmax_call(ir::op o, scalar_type t, const std::string& a, const std::string& b);
  std::string converted(ir::id e, scalar_type to);
  std::string expr(ir::id i);
  std::string index(ir::id i, int param, int bound, bool slot);
  std::string value(ir::id i);
  void block(source_writer& w, ir::id b);
  void statement(source_writer& w, const ir::stmt& s);

  // Arguments: where their values lie, gathered into private copies and scattered back
  // (emit_arguments.hpp).
  bool soa(const ir::param& p) const { return ir::by_components(p, ir::source_options{.dats = dats_}); }
  std::string element_start(const ir::param& p, const std::string& element) const;
  std::string map_target(const ir::param& p, const std::string& slot);
  std::string direct_target(const ir::param& p);
  std::string dat_value(const ir::param& p, const std::string& at, const std::string& k);
  void declare_private(source_writer& w, std::size_t i, const ir::param& p);
  void gather(source_writer& w, std::size_t i, const ir::param& p);
  void scatter(source_writer& w, std::size_t i, const ir::param& p);
  std::string raw_parameters();
  void raw_call(source_writer& w);

  // `statement` for each component k: one line for dim 1, else a loop over pl_k.
  template <class F>
  void for_components(source_writer& w, int dim, F&& statement_for) {
    if (dim == 1)
      w.line("{}", statement_for("0"));
    else
      w.line("for (int pl_k = 0; pl_k < {}; ++pl_k) {}", dim, statement_for("pl_k"));
  }

  // `statement` for each (slot j, component k) of a private copy: a whole-map argument
  // loops over its slots with the slot's position in the dat as pl_at.
  template <class F>
  void for_elements(source_writer& w, std::size_t i, const ir::param& p, F&& statement_for, bool with_data = true) {
    const std::string arg = parloop::detail::format("arg{}", i);
    if (p.kind != arg_kind::whole_map) {
      for_components(w, p.dim, [&](const std::string& k) {
        const std::string data = p.kind == arg_kind::global ? parloop::detail::format("data{}[{}]", p.data, k)
                                                            : dat_value(p, arg + "_at", k);
        return statement_for(parloop::detail::format("{}[{}]", arg, k), data);
      });
      return;
    }
    w.open("for (int pl_j = 0; pl_j < {}; ++pl_j)", p.arity);
    if (with_data) {
      w.line("const {} pl_at = {};", index_type(), element_start(p, map_target(p, "pl_j")));
    }
    for_components(w, p.dim, [&](const std::string& k) {
      const std::string mine = raw() ? parloop::detail::format("{}[pl_j * {} + {}]", arg, p.dim, k)
                                     : parloop::detail::format("{}[pl_j][{}]", arg, k);
      return statement_for(mine, dat_value(p, "pl_at", k));
    });
    w.close();
  }

  // The entry point, one element's work and the guarded helpers (emit_kernel.hpp).
  void kernel_definition(source_writer& w);
  void element(source_writer& w, const std::vector<bool>& in_vectors, int j);
  void helpers(source_writer& w);
  void checked_index_helper(source_writer& w);

  // The elements of a work-item, per strategy (emit_elements.hpp).
  void elements(source_writer& w);
  void vector_elements(source_writer& w, int width);
  void cell_element(source_writer& w);
  static std::string in_range(int j);
  void move_vectors(source_writer& w, const std::vector<std::size_t>& args, int width, bool load);

  // Global reductions within and across work-groups (emit_reductions.hpp).
  void reduce_in_groups(source_writer& w);
  std::string combine(const ir::param& p, const std::string& target, const std::string& value);
  static std::string group_array(std::size_t i) { return parloop::detail::format("pl_group{}", i); }
  static std::string in_group(std::size_t i, const ir::param& p, const std::string& item, const std::string& k);
  bool by_warps(int block) const;
  void group_tree(source_writer& w, std::size_t i, const ir::param& p, int block);
  void local_tree(source_writer& w, std::size_t i, const ir::param& p, int block);
  void warp_tree(source_writer& w, std::size_t i, const ir::param& p, int block);

  // OP2's two-level plan (emit_plan.hpp). The staged arguments grouped as exec/loop/colors.hpp
  // groups them: each distinct (dat, map, mode), in parameter order, with the slots its
  // arguments use.
  struct stage_group {
    const ir::param* first;
    int slots = 0;
    std::uint64_t slot_bits = 0;
    std::vector<std::size_t> params;
  };
  std::vector<stage_group> stage_groups() const;
  void block_elements(source_writer& w);

  const ir::kernel& k_;
  const dialect& d_;
  const strategy& strategy_;
  const bool checked_;
  const conflicts writes_;
  const bool colored_;
  // A loop over an extruded set run a cell per work-item (runs_cells): no loop over the layers.
  const bool cells_;
  const dat_layout dats_;
  features features_;
  std::set<std::pair<ir::op, scalar_type>> minmax_;
  std::set<std::pair<atomic_op, scalar_type>> atomics_;
};

}  // namespace parloop::codegen

PARLOOP_COLD_END
