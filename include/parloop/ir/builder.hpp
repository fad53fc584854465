// SPDX-License-Identifier: MIT
// Builds a kernel's IR while it is traced, and checks the rules only tracing can see.
#pragma once

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/identifier.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::ir {

namespace detail {

struct expr_hash {
  std::size_t operator()(const expr& e) const {
    std::size_t h = static_cast<std::size_t>(e.kind) * 0x9E3779B97F4A7C15ull;
    const auto mix = [&h](std::uint64_t v) {
      h ^= std::hash<std::uint64_t>{}(v) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    };
    mix(static_cast<std::uint64_t>(e.type));
    mix(static_cast<std::uint64_t>(e.o));
    mix(e.a);
    mix(e.b);
    mix(e.c);
    mix(static_cast<std::uint64_t>(e.ival));
    mix(std::bit_cast<std::uint64_t>(e.fval));
    return h;
  }
};

}  // namespace detail

class builder {
 public:
  builder(std::string kernel_name, std::vector<param> params);

  const kernel& result() const { return k_; }
  kernel take() { return std::move(k_); }

  // ---- expressions (identical expressions share one node) ----
  id literal_int(scalar_type t, std::int64_t v) {
    return intern({expr_kind::literal, t, op::add, no_id, no_id, no_id, v, 0.0});
  }
  id literal_float(scalar_type t, double v) {
    return intern({expr_kind::literal, t, op::add, no_id, no_id, no_id, 0, v});
  }

  // An element as a place to write; reads go through read_element.
  id element(id p, id slot, id comp) {
    check_component(p, slot, comp);
    return intern({expr_kind::element, k_.params.at(p).type, op::add, p, slot, comp});
  }
  id read_element(id p, id slot, id comp) {
    const id e = element(p, slot, comp);
    check_readable(e);
    return e;
  }
  id local_ref(id l) { return intern({expr_kind::local, k_.locals.at(l).type, op::add, l}); }
  id unary(op o, scalar_type t, id a) { return intern({expr_kind::unary, t, o, a}); }
  id binary(op o, scalar_type t, id a, id b) { return intern({expr_kind::binary, t, o, a, b}); }
  id call(op o, scalar_type t, id a, id b = no_id) { return intern({expr_kind::call, t, o, a, b}); }
  id select(scalar_type t, id c, id a, id b) { return intern({expr_kind::select, t, op::add, c, a, b}); }
  id cast(scalar_type t, id a) { return k_.exprs[a].type == t ? a : intern({expr_kind::cast, t, op::add, a}); }
  // pl::layer(): a loop not over an extruded set refuses it (exec's entry_of).
  id layer() { return intern({expr_kind::layer, scalar_type::int32}); }

  // ---- statements ----
  id let(std::string_view name, scalar_type t, id value) {
    const id l = new_local(name, t, "v");
    append({stmt_kind::let, op::add, l, value});
    return l;
  }
  void assign(id target, id value) {
    append({stmt_kind::assign, op::add, target, value});
    mark_written(target);
  }
  void update(op o, id target, id value) {
    check_readable(target);
    append({stmt_kind::update, o, target, value});
  }
  id begin_if(id cond) {
    const id s = append({stmt_kind::if_, op::add, no_id, cond, no_id, new_block()});
    open_.push_back(k_.stmts[s].block);
    return s;
  }
  void begin_else(id if_stmt) {
    const id b = new_block();
    k_.stmts.at(if_stmt).else_block = b;
    open_.push_back(b);
  }
  // Returns the loop variable.
  id begin_for(scalar_type t, id lo, id hi) {
    const id l = new_local("", t, "i");
    const id s = append({stmt_kind::for_, op::add, l, lo, hi, new_block()});
    open_.push_back(k_.stmts[s].block);
    return l;
  }
  void end_block() { open_.pop_back(); }

  const expr& at(id e) const { return k_.exprs.at(e); }
  const std::string& kernel_name() const { return k_.name; }

 private:
  id intern(const expr& e);
  id new_block() {
    k_.blocks.emplace_back();
    return static_cast<id>(k_.blocks.size() - 1);
  }
  id append(const stmt& s);

  id new_local(std::string_view requested, scalar_type t, std::string_view fallback);

  std::optional<std::int64_t> constant(id e) const {
    if (e == no_id || k_.exprs[e].kind != expr_kind::literal) return std::nullopt;
    return k_.exprs[e].ival;
  }

  void check_component(id p, id slot, id comp) const;

  // A WRITE argument holds garbage until the kernel writes it: reading it first is an error.
  // A write with a computed index counts for every component, a read with one needs any write.
  void check_readable(id e) const;
  void mark_written(id target) {
    const expr& x = k_.exprs[target];
    if (x.kind == expr_kind::element) written_.push_back({x.a, constant(x.b), constant(x.c)});
  }

  struct written_element {
    id param;
    std::optional<std::int64_t> slot, comp;
  };

  kernel k_;
  std::vector<id> open_;
  std::unordered_map<expr, id, detail::expr_hash> interned_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, int> next_suffix_;
  std::vector<written_element> written_;
};

}  // namespace parloop::ir

PARLOOP_COLD_END

#if !PARLOOP_COMPILED
#include "parloop/ir/builder_impl.hpp"
#endif
