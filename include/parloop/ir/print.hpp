// SPDX-License-Identifier: MIT
// A readable text form of the IR, for tests, error messages and the documentation.
#pragma once

#include <string>

#include "parloop/config.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::ir {

namespace detail {

inline std::string literal_text(const expr& e) {
  switch (e.type) {
    case scalar_type::boolean: return e.ival != 0 ? "true" : "false";
    case scalar_type::int32: return std::to_string(e.ival);
    case scalar_type::int64: return std::to_string(e.ival) + "L";
    case scalar_type::float32: return parloop::detail::format("{}f", static_cast<float>(e.fval));
    case scalar_type::float64: return parloop::detail::format("{}", e.fval);
  }
  return "?";
}

inline std::string expr_text(const kernel& k, id i) {
  const expr& e = k.exprs.at(i);
  switch (e.kind) {
    case expr_kind::literal: return literal_text(e);
    case expr_kind::element:
      return e.b == no_id ? parloop::detail::format("arg{}[{}]", e.a, expr_text(k, e.c))
                          : parloop::detail::format("arg{}[{}][{}]", e.a, expr_text(k, e.b), expr_text(k, e.c));
    case expr_kind::local: return k.locals.at(e.a).name;
    case expr_kind::unary: return parloop::detail::format("({}{})", op_name(e.o), expr_text(k, e.a));
    case expr_kind::binary:
      return parloop::detail::format("({} {} {})", expr_text(k, e.a), op_name(e.o), expr_text(k, e.b));
    case expr_kind::call:
      return e.b == no_id ? parloop::detail::format("{}({})", op_name(e.o), expr_text(k, e.a))
                          : parloop::detail::format("{}({}, {})", op_name(e.o), expr_text(k, e.a), expr_text(k, e.b));
    case expr_kind::select:
      return parloop::detail::format("({} ? {} : {})", expr_text(k, e.a), expr_text(k, e.b), expr_text(k, e.c));
    case expr_kind::cast: return parloop::detail::format("({}){}", type_name(e.type), expr_text(k, e.a));
    case expr_kind::layer: return "layer";
  }
  return "?";
}

inline void block_text(const kernel& k, id b, int depth, std::string& out) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  for (const id si : k.blocks.at(b).stmts) {
    const stmt& s = k.stmts[si];
    switch (s.kind) {
      case stmt_kind::let:
        out += parloop::detail::format("{}{} {} = {};\n", pad, type_name(k.locals[s.target].type),
                                       k.locals[s.target].name, expr_text(k, s.value));
        break;
      case stmt_kind::assign:
        out += parloop::detail::format("{}{} = {};\n", pad, expr_text(k, s.target), expr_text(k, s.value));
        break;
      case stmt_kind::update:
        if (s.o == op::min || s.o == op::max) {
          out += parloop::detail::format("{}{} = {}({}, {});\n", pad, expr_text(k, s.target), op_name(s.o),
                                         expr_text(k, s.target), expr_text(k, s.value));
        } else {
          out += parloop::detail::format("{}{} {}= {};\n", pad, expr_text(k, s.target), op_name(s.o),
                                         expr_text(k, s.value));
        }
        break;
      case stmt_kind::if_:
        out += parloop::detail::format("{}if ({}) {{\n", pad, expr_text(k, s.value));
        block_text(k, s.block, depth + 1, out);
        if (s.else_block != no_id) {
          out += pad + "} else {\n";
          block_text(k, s.else_block, depth + 1, out);
        }
        out += pad + "}\n";
        break;
      case stmt_kind::for_: {
        const local& v = k.locals[s.target];
        out += parloop::detail::format("{}for ({} {} = {}; {} < {}; ++{}) {{\n", pad, type_name(v.type), v.name,
                                       expr_text(k, s.value), v.name, expr_text(k, s.hi), v.name);
        block_text(k, s.block, depth + 1, out);
        out += pad + "}\n";
        break;
      }
    }
  }
}

inline std::string_view kind_name(arg_kind kind) {
  switch (kind) {
    case arg_kind::direct: return "direct";
    case arg_kind::indirect: return "indirect";
    case arg_kind::whole_map: return "whole map";
    case arg_kind::global: return "global";
  }
  return "?";
}

}  // namespace detail

// The kernel as pseudo-C: one line per parameter, then the body.
inline std::string to_string(const kernel& k) {
  std::string out = parloop::detail::format("kernel {}\n", k.name);
  if (const extrusion& x = k.extrusion; x.layers > 0) {
    out += parloop::detail::format("  over layers [{}, {}) of {} per column{}\n", x.first, x.first + x.count, x.layers,
                                   x.facets ? ", interior facets" : "");
  }
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const param& p = k.params[i];
    out += parloop::detail::format("  arg{}: {}[{}] {} {}", i, type_name(p.type), p.dim, access_name(p.mode),
                                   detail::kind_name(p.kind));
    if (p.kind == arg_kind::indirect) out += parloop::detail::format(" slot {} of {}", p.slot, p.arity);
    if (p.kind == arg_kind::whole_map) out += parloop::detail::format(" arity {}", p.arity);
    if (p.layered) out += " layered";
    out += "\n";
  }
  out += "{\n";
  if (k.raw_source.empty())
    detail::block_text(k, 0, 1, out);
  else
    out += "  // the C function in its source\n";
  out += "}\n";
  return out;
}

}  // namespace parloop::ir

PARLOOP_COLD_END
