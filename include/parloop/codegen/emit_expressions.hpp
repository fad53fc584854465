// SPDX-License-Identifier: MIT
// The emitter's expressions and statements: types (each one noted for what it needs of the device),
// literals, identities of the combining modes, checked indices, and the body's statements.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

inline std::string_view emitter::type(scalar_type t) {
  if (t == scalar_type::float64) features_.fp64 = true;
  return d_.type(t);
}

inline std::string emitter::floating_literal(scalar_type t, double v) {
  if (std::isnan(v)) return d_.not_a_number(t);
  if (std::isinf(v)) return d_.infinity(t, v < 0);
  std::string s = t == scalar_type::float32 ? parloop::detail::format("{}", static_cast<float>(v))
                                            : parloop::detail::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return t == scalar_type::float32 ? s + "f" : s;
}

inline std::string emitter::literal(scalar_type t, std::int64_t i, double f) {
  switch (t) {
    case scalar_type::boolean: return i != 0 ? "true" : "false";
    case scalar_type::int32: return i == -2147483648LL ? "(-2147483647 - 1)" : std::to_string(i);
    case scalar_type::int64: return d_.int64_literal(i);
    case scalar_type::float32:
    case scalar_type::float64: type(t); return floating_literal(t, f);
  }
  return "?";
}

// The start value of a private INC, MIN or MAX result.
inline std::string emitter::identity(access mode, scalar_type t) {
  if (mode == access::inc) return literal(t, 0, 0.0);
  const bool lowest = mode == access::max;
  switch (t) {
    case scalar_type::boolean:
    case scalar_type::int32: return literal(t, lowest ? -2147483648LL : 2147483647LL, 0.0);
    case scalar_type::int64:
      return literal(t, lowest ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max(),
                     0.0);
    case scalar_type::float32:
    case scalar_type::float64: type(t); return d_.infinity(t, lowest);
  }
  return "?";
}

inline std::string emitter::minmax_call(ir::op o, scalar_type t, const std::string& a, const std::string& b) {
  const scalar_type ht = t == scalar_type::boolean ? scalar_type::int32 : t;
  minmax_.insert({o, ht});
  type(ht);
  return parloop::detail::format("pl_{}_{}({}, {})", ir::op_name(o), type_tag(ht), a, b);
}

inline std::string emitter::converted(ir::id e, scalar_type to) {
  const std::string s = expr(e);
  return k_.exprs[e].type == to ? s : parloop::detail::format("({}){}", type(to), s);
}

inline std::string emitter::expr(ir::id i) {
  const ir::expr& e = k_.exprs.at(i);
  switch (e.kind) {
    case ir::expr_kind::literal: return literal(e.type, e.ival, e.fval);
    case ir::expr_kind::element: {
      const ir::param& p = k_.params.at(e.a);
      std::string place = parloop::detail::format("arg{}", e.a);
      if (e.b != ir::no_id) place += parloop::detail::format("[{}]", index(e.b, static_cast<int>(e.a), p.arity, true));
      return place + parloop::detail::format("[{}]", index(e.c, static_cast<int>(e.a), p.dim, false));
    }
    case ir::expr_kind::local: return local(e.a);
    case ir::expr_kind::unary: type(e.type); return parloop::detail::format("({}{})", ir::op_name(e.o), expr(e.a));
    case ir::expr_kind::binary:
      type(e.type);
      return parloop::detail::format("({} {} {})", expr(e.a), ir::op_name(e.o), expr(e.b));
    case ir::expr_kind::call:
      if (e.o == ir::op::min || e.o == ir::op::max) return minmax_call(e.o, e.type, expr(e.a), expr(e.b));
      // Math functions take their result type: sqrt of an int is sqrt of a double, as in C++.
      if (e.b == ir::no_id) return parloop::detail::format("{}({})", d_.math(e.o, e.type), converted(e.a, e.type));
      return parloop::detail::format("{}({}, {})", d_.math(e.o, e.type), converted(e.a, e.type),
                                     converted(e.b, e.type));
    case ir::expr_kind::select:
      return parloop::detail::format("({} ? {} : {})", expr(e.a), converted(e.b, e.type), converted(e.c, e.type));
    case ir::expr_kind::cast: return parloop::detail::format("(({}){})", type(e.type), expr(e.a));
    case ir::expr_kind::layer: return "pl_l";
  }
  return "?";
}

// A component or slot index. A constant one was checked while tracing; a computed one, where
// checks are on, goes through pl_checked_index: out of [0, bound) it records the first
// violation for the host (exec/device/index_errors.hpp) and gives 0, so nothing outside the
// argument is touched.
inline std::string emitter::index(ir::id i, int param, int bound, bool slot) {
  if (!checked_ || k_.exprs[i].kind == ir::expr_kind::literal) return expr(i);
  return parloop::detail::format("pl_checked_index({}, {}, {}, {}, pl_index_errors)", value(i), bound,
                                 ir::index_site(param, slot), ir::kernel_tag(k_.name));
}

// A statement's right-hand side needs no outer parentheses.
inline std::string emitter::value(ir::id i) {
  std::string s = expr(i);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t c = 0; c + 1 < s.size(); ++c) {
    depth += s[c] == '(' ? 1 : s[c] == ')' ? -1 : 0;
    if (depth == 0) return s;  // the first parenthesis closes before the end
  }
  return s.substr(1, s.size() - 2);
}

inline void emitter::block(source_writer& w, ir::id b) {
  for (const ir::id si : k_.blocks.at(b).stmts) statement(w, k_.stmts[si]);
}

inline void emitter::statement(source_writer& w, const ir::stmt& s) {
  switch (s.kind) {
    case ir::stmt_kind::let:
      w.line("{} {} = {};", type(k_.locals[s.target].type), local(s.target), value(s.value));
      return;
    case ir::stmt_kind::assign: w.line("{} = {};", expr(s.target), value(s.value)); return;
    case ir::stmt_kind::update:
      if (s.o == ir::op::min || s.o == ir::op::max) {
        const scalar_type t = promote(k_.exprs[s.target].type, k_.exprs[s.value].type);
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
      const std::string end = parloop::detail::format("pl_bound{}", s.target);
      w.open("for ({} {} = {}, {} = {}; {} < {}; ++{})", type(k_.locals[s.target].type), v, value(s.value), end,
             value(s.hi), v, end, v);
      block(w, s.block);
      w.close();
      return;
    }
  }
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
