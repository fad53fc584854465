// SPDX-License-Identifier: MIT
// The definitions of ir::builder's larger members (ir/builder.hpp): compiled once into the library
// under PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/identifier.hpp"
#include "parloop/ir/builder.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::ir {

PARLOOP_FUNC builder::builder(std::string kernel_name, std::vector<param> params) {
  k_.name = std::move(kernel_name);
  k_.params = std::move(params);
  k_.blocks.emplace_back();
  open_.push_back(0);
}

PARLOOP_FUNC id builder::intern(const expr& e) {
  const auto [it, inserted] = interned_.try_emplace(e, static_cast<id>(k_.exprs.size()));
  if (inserted) k_.exprs.push_back(e);
  return it->second;
}

PARLOOP_FUNC id builder::append(const stmt& s) {
  k_.stmts.push_back(s);
  const id i = static_cast<id>(k_.stmts.size() - 1);
  k_.blocks[open_.back()].stmts.push_back(i);
  return i;
}

PARLOOP_FUNC id builder::new_local(std::string_view requested, scalar_type t, std::string_view fallback) {
  std::string base(requested.empty() ? fallback : requested);
  // Any C identifier will do: the generated source gives locals a prefix of their own, so
  // that no keyword, macro or built-in of a device language can meet them.
  if (!requested.empty() && !parloop::detail::is_identifier(base)) {
    throw trace_error(
        parloop::detail::format("kernel '{}': '{}' cannot name a local: use a C identifier (letters, digits "
                                "and _, not starting with a digit)",
                                k_.name, base));
  }
  // The next suffix to try is kept per base name, so that naming n locals alike costs O(n),
  // not a scan of every local for every candidate.
  std::string name = base;
  if (names_.count(name) != 0) {
    int& n = next_suffix_[base];
    do name = base + "_" + std::to_string(++n);
    while (names_.count(name) != 0);
  }
  names_.insert(name);
  k_.locals.push_back({std::move(name), t});
  return static_cast<id>(k_.locals.size() - 1);
}

PARLOOP_FUNC void builder::check_component(id p, id slot, id comp) const {
  const param& prm = k_.params.at(p);
  if (const auto c = constant(comp); c && (*c < 0 || *c >= prm.dim)) {
    throw trace_error(parloop::detail::format("kernel '{}': argument {} has dim {}, component {} is out of range",
                                              k_.name, p, prm.dim, *c));
  }
  if (const auto s = constant(slot); s && (*s < 0 || *s >= prm.arity)) {
    throw trace_error(parloop::detail::format(
        "kernel '{}': argument {} is through a map of arity {}, slot {} is out of range", k_.name, p, prm.arity, *s));
  }
}

PARLOOP_FUNC void builder::check_readable(id e) const {
  const expr& x = k_.exprs[e];
  if (x.kind != expr_kind::element || k_.params[x.a].mode != access::write) return;
  const auto slot = constant(x.b);
  const auto comp = constant(x.c);
  const auto covers = [](const std::optional<std::int64_t>& written, const std::optional<std::int64_t>& read) {
    return !written || !read || *written == *read;
  };
  for (const auto& w : written_) {
    if (w.param == x.a && covers(w.slot, slot) && covers(w.comp, comp)) return;
  }
  throw trace_error(
      parloop::detail::format("kernel '{}': argument {} is declared pl::WRITE and is read (component {}) before "
                              "the kernel writes it; declare it pl::RW to read its old value",
                              k_.name, x.a, comp ? std::to_string(*comp) : std::string("computed")));
}

}  // namespace parloop::ir

PARLOOP_COLD_END
