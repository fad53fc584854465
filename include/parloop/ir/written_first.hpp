// SPDX-License-Identifier: MIT
// Whether a kernel's body assigns every component of an argument before anything reads it:
// then the argument's old values are never seen, and a device need not load them before the
// body (a WRITE argument moved as a vector is stored whole, so its old values must otherwise be
// loaded to keep the components the body leaves alone).
#pragma once

#include <vector>

#include "parloop/config.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::ir {

namespace detail {

// Walks the body in order, remembering which components of one parameter are assigned.
class first_writes {
 public:
  first_writes(const kernel& k, id param)
      : k_(k), param_(param), assigned_(static_cast<std::size_t>(k.params.at(param).dim), false) {}

  bool all_assigned() const { return left_ == 0; }

  // Whether the statement reads a component not yet assigned; then records what it assigns,
  // if it is an assignment that always runs (top_level) to a constant component.
  bool reads_unassigned(const stmt& s, bool top_level) {
    bool read = false;
    switch (s.kind) {
      case stmt_kind::let: read = reads(s.value); break;
      case stmt_kind::assign: read = reads(s.value) || target_reads(s.target, true); break;
      case stmt_kind::update: read = reads(s.value) || target_reads(s.target, false); break;
      case stmt_kind::if_:
        read = reads(s.value) || block_reads(s.block) || (s.else_block != no_id && block_reads(s.else_block));
        break;
      case stmt_kind::for_: read = reads(s.value) || reads(s.hi) || block_reads(s.block); break;
    }
    if (!read && top_level && s.kind == stmt_kind::assign) assign(s.target);
    return read;
  }

 private:
  // A component of the parameter that is not assigned yet, or not known (computed).
  bool unassigned(const expr& element) const {
    if (element.a != param_) return false;
    const expr& c = k_.exprs[element.c];
    if (c.kind != expr_kind::literal) return left_ > 0;
    return c.ival < 0 || static_cast<std::size_t>(c.ival) >= assigned_.size() ||
           !assigned_[static_cast<std::size_t>(c.ival)];
  }

  bool reads(id e) const {
    if (e == no_id) return false;
    const expr& x = k_.exprs[e];
    switch (x.kind) {
      case expr_kind::literal:
      case expr_kind::local: return false;
      case expr_kind::element: return unassigned(x) || reads(x.b) || reads(x.c);
      default: return reads(x.a) || reads(x.b) || reads(x.c);
    }
  }

  // An element target's slot and component are read; the element itself too unless assigned.
  bool target_reads(id target, bool assigned) const {
    const expr& t = k_.exprs[target];
    if (t.kind != expr_kind::element) return false;
    return (!assigned && unassigned(t)) || reads(t.b) || reads(t.c);
  }

  // Nothing inside an if or a loop counts as assigned: it may not run.
  bool block_reads(id b) {
    for (const id s : k_.blocks[b].stmts) {
      if (reads_unassigned(k_.stmts[s], false)) return true;
    }
    return false;
  }

  void assign(id target) {
    const expr& t = k_.exprs[target];
    if (t.kind != expr_kind::element || t.a != param_ || k_.exprs[t.c].kind != expr_kind::literal) return;
    const auto c = static_cast<std::size_t>(k_.exprs[t.c].ival);
    if (c < assigned_.size() && !assigned_[c]) {
      assigned_[c] = true;
      --left_;
    }
  }

  const kernel& k_;
  id param_;
  std::vector<bool> assigned_;
  std::size_t left_ = assigned_.size();
};

}  // namespace detail

// True when the body's own statements (not ones inside an if or a loop, which may not run)
// assign each of the direct parameter's components, by constant index, before any statement
// reads that component. A kernel from source has no body to look at, and an argument through a
// map has slots this does not tell apart: false.
inline bool written_before_read(const kernel& k, id param) {
  if (k.blocks.empty() || !k.raw_source.empty() || k.params.at(param).kind != arg_kind::direct) return false;
  detail::first_writes walk(k, param);
  for (const id s : k.blocks[0].stmts) {
    if (walk.reads_unassigned(k.stmts[s], true)) return false;
    if (walk.all_assigned()) return true;
  }
  return false;
}

}  // namespace parloop::ir

PARLOOP_COLD_END
