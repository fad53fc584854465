// SPDX-License-Identifier: MIT
// The same dat or global passed to a par_loop twice, one use modifying it: the host runs such a
// loop in order and a device all at once, so their answers differ. Refused, as OP2 refuses it,
// except where it is safe by construction.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::dsl {

namespace detail {
// Safe to pass together: both only read, or both INC (or both MIN, or both MAX) through maps,
// which combine atomically in any order -- as the host's one after the other does.
inline bool may_share(const ir::param& a, const ir::param& b) {
  if (a.mode == access::read && b.mode == access::read) return true;
  return is_combining(a.mode) && a.mode == b.mode && through_map(a.kind) && through_map(b.kind);
}
}  // namespace detail

// Runs once per argument signature (the sharing of dats and maps is part of it); `args` are
// the arguments' views, in the order of `params`.
inline void check_aliasing(const std::string& kernel, std::span<const ir::param> params,
                           std::span<const parloop::detail::arg_view> args) {
  for (std::size_t j = 0; j < params.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      const ir::param& a = params[i];
      const ir::param& b = params[j];
      if (a.data != b.data || detail::may_share(a, b)) continue;
      throw argument_error(parloop::detail::format(
          "par_loop '{}': arguments {} ({}) and {} ({}) are the same {} '{}', and {} modifies it: the host and a "
          "device would give different answers. Pass it once (pl::RW reads and writes it), or only through maps "
          "with every use pl::INC (or every use pl::MIN, or pl::MAX)",
          kernel, i, access_name(a.mode), j, access_name(b.mode), a.kind == arg_kind::global ? "global" : "dat",
          args[i].owner->name, is_modified(a.mode) && is_modified(b.mode) ? "each" : "one"));
    }
  }
}

}  // namespace parloop::dsl
