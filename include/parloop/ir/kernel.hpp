// SPDX-License-Identifier: MIT
// The kernel IR: plain data that tracing produces and code generation consumes.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::ir {

using id = std::uint32_t;
inline constexpr id no_id = std::numeric_limits<id>::max();

// One argument of the loop, in par_loop order. Arguments that share a dat share `data`, and
// arguments through one map share `map`: the generated kernel takes each array and each map
// once, so a written buffer never aliases another parameter.
struct param {
  scalar_type type;
  int dim;
  access mode;
  arg_kind kind;
  int slot;   // the map slot of an indirect argument
  int arity;  // the map's arity of an indirect or whole-map argument, else 1
  int data;   // which distinct dat or global, numbered by first appearance
  int map;    // which distinct map, numbered by first appearance; -1 if none
  // In a loop over an extruded set (kernel::extrusion): whether the argument's place moves with
  // the layer -- a dat on the extruded set itself, or a map from it (its target one further per
  // layer) -- rather than staying with the column (a dat on the base set, a map from it).
  bool layered = false;

  friend bool operator==(const param&, const param&) = default;
};

enum class expr_kind : std::uint8_t {
  literal,  // value in ival (integers, bool) or fval (floating)
  element,  // a = param, b = slot expression (whole-map only, else no_id), c = component expression
  local,    // a = local
  unary,    // o, a
  binary,   // o, a, b
  call,     // o, a, b (no_id for one-argument functions)
  select,   // a ? b : c
  cast,     // a converted to type
  layer,    // the layer of the cell being run (an int), in a loop over an extruded set
};

struct expr {
  expr_kind kind;
  scalar_type type;
  op o = op::add;
  id a = no_id, b = no_id, c = no_id;
  std::int64_t ival = 0;
  double fval = 0.0;

  // Bitwise on the floating value, so that 0.0 and -0.0 stay distinct literals.
  friend bool operator==(const expr& x, const expr& y) {
    return x.kind == y.kind && x.type == y.type && x.o == y.o && x.a == y.a && x.b == y.b && x.c == y.c &&
           x.ival == y.ival && std::bit_cast<std::uint64_t>(x.fval) == std::bit_cast<std::uint64_t>(y.fval);
  }
};

struct local {
  std::string name;
  scalar_type type;

  friend bool operator==(const local&, const local&) = default;
};

enum class stmt_kind : std::uint8_t {
  let,     // local a = value
  assign,  // target = value
  update,  // target o= value (o: add, sub, mul, div; min/max: target = o(target, value))
  if_,     // if (cond) block then_block else block else_block (no_id: none)
  for_,    // for (local a = lo; a < hi; ++a) block body
};

struct stmt {
  stmt_kind kind;
  op o = op::add;
  id target = no_id;  // an element or local expression; for let and for_: the local
  id value = no_id;   // let, assign, update; if_: the condition; for_: lo
  id hi = no_id;      // for_
  id block = no_id;   // if_: then; for_: body
  id else_block = no_id;

  friend bool operator==(const stmt&, const stmt&) = default;
};

struct block {
  std::vector<id> stmts;

  friend bool operator==(const block&, const block&) = default;
};

// How the C function of a kernel from source takes one parameter, where its caller knows the
// function's own types (OP2's front end, whose kernels C++ has compiled): a pointer to `type`,
// const or not, or for a whole-map argument a pointer to one such pointer per map slot (OP2's
// vector arguments, `const double** x`, x[slot][component]).
struct raw_param {
  scalar_type type;
  bool is_const = false;
  bool per_slot = false;

  friend bool operator==(const raw_param&, const raw_param&) = default;
};

// A loop over an extruded set (core/extruded_set.hpp) runs its columns, each work-item the
// layers [first, first + count) of one column in order; `layers` is the cells per column of the
// loop's set. Over interior horizontal facets, a layered map argument sees 2 x the map's arity
// slots: the cell below the facet's, then the cell above's. layers == 0: a loop over a set.
struct extrusion {
  int layers = 0;
  int first = 0;
  int count = 0;
  bool facets = false;

  friend bool operator==(const extrusion&, const extrusion&) = default;
};

// A traced kernel has a body; a kernel from source has raw_source instead (an elemental C
// function called `name`, taking one pointer per parameter, in the devices' C: made so by
// exec/kernel/source_kernel.hpp) and no body.
struct kernel {
  std::string name;
  std::vector<param> params;
  std::vector<expr> exprs;
  std::vector<local> locals;
  std::vector<stmt> stmts;
  std::vector<block> blocks;  // blocks[0] is the body
  std::string raw_source;
  // The C function's parameters as it declares them; empty: `T*` each, const for READ, a
  // whole-map argument's slots one after another.
  std::vector<raw_param> raw_params;
  ir::extrusion extrusion;

  // Structural: two kernels are equal when they would generate the same code.
  friend bool operator==(const kernel&, const kernel&) = default;
};

}  // namespace parloop::ir
