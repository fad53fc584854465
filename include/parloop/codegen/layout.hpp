// SPDX-License-Identifier: MIT
// The parameters of a generated kernel, in order, and which par_loop argument supplies each:
// what a backend binds, and what the emitters declare. After `start` and `end` come the
// buffers listed here.
#pragma once

#include <cstdint>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::codegen {

enum class buffer_role : std::uint8_t {
  data,         // a dat's or global's values: index is ir::param::data
  map,          // a map's values: index is ir::param::map
  partials,     // one partial result per work-group of a global reduction: index is the parameter
  groups_done,  // how many work-groups have stored their partials; the last one finishes
};

struct kernel_buffer {
  buffer_role role;
  int index;
  // The par_loop argument whose dat, global or map this is (the first, where several share
  // it); -1 for groups_done, which the launch provides.
  int position;
  ir::scalar_type type;
  int dim;  // values per element (partials: per work-group)
  bool is_const;

  friend bool operator==(const kernel_buffer&, const kernel_buffer&) = default;
};

constexpr bool is_global_reduction(const ir::param& p) {
  return p.kind == arg_kind::global && p.mode != access::read;
}

// Each distinct dat or global once (read-only if every argument on it is READ), then each
// distinct map, then the partials of each global reduction and the counter that tells the last
// work-group to combine them with the global's value.
inline std::vector<kernel_buffer> buffers(const ir::kernel& k) {
  std::vector<kernel_buffer> out;
  const int n = static_cast<int>(k.params.size());
  for (int d = 0;; ++d) {
    int first = -1;
    bool read_only = true;
    for (int i = 0; i < n; ++i) {
      const ir::param& p = k.params[static_cast<std::size_t>(i)];
      if (p.data != d) continue;
      if (first < 0) first = i;
      read_only = read_only && p.mode == access::read;
    }
    if (first < 0) break;
    const ir::param& p = k.params[static_cast<std::size_t>(first)];
    out.push_back({buffer_role::data, d, first, p.type, p.dim, read_only});
  }
  for (int m = 0;; ++m) {
    int first = -1;
    for (int i = 0; i < n && first < 0; ++i) {
      if (k.params[static_cast<std::size_t>(i)].map == m) first = i;
    }
    if (first < 0) break;
    out.push_back({buffer_role::map, m, first, ir::scalar_type::int32, k.params[static_cast<std::size_t>(first)].arity, true});
  }
  bool any_reduction = false;
  for (int i = 0; i < n; ++i) {
    const ir::param& p = k.params[static_cast<std::size_t>(i)];
    if (!is_global_reduction(p)) continue;
    out.push_back({buffer_role::partials, i, i, p.type, p.dim, false});
    any_reduction = true;
  }
  if (any_reduction) out.push_back({buffer_role::groups_done, 0, -1, ir::scalar_type::int32, 1, false});
  return out;
}

}  // namespace parloop::codegen
