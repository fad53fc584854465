// SPDX-License-Identifier: MIT
// The kernel IR: plain data that tracing produces and code generation consumes.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::ir {

using id = std::uint32_t;
inline constexpr id no_id = std::numeric_limits<id>::max();

// One argument of the loop, in par_loop order.
struct param {
  scalar_type type;
  int dim;
  access mode;
  arg_kind kind;
  int slot;   // the map slot of an indirect argument
  int arity;  // the map's arity of an indirect or whole-map argument, else 1
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
};

struct expr {
  expr_kind kind;
  scalar_type type;
  op o = op::add;
  id a = no_id, b = no_id, c = no_id;
  std::int64_t ival = 0;
  double fval = 0.0;
};

struct local {
  std::string name;
  scalar_type type;
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
};

struct block {
  std::vector<id> stmts;
};

struct kernel {
  std::string name;
  std::vector<param> params;
  std::vector<expr> exprs;
  std::vector<local> locals;
  std::vector<stmt> stmts;
  std::vector<block> blocks;  // blocks[0] is the body
};

}  // namespace parloop::ir
