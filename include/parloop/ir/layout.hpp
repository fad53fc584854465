// SPDX-License-Identifier: MIT
// The parameters of a generated kernel, in order, and which par_loop argument supplies each:
// what a backend binds, and what the emitters declare. After `start` and `end` come the
// buffers listed here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/dat_layout.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::ir {

enum class buffer_role : std::uint8_t {
  data,          // a dat's or global's values: index is param::data
  map,           // a map's values: index is param::map
  partials,      // one partial result per work-group of a global reduction: index is the parameter
  groups_done,   // how many work-groups have stored their partials; the last one finishes
  index_errors,  // the first computed index out of range (exec/device/index_errors.hpp), if checked
  order,         // a coloured loop's elements in colour order: the launch's range indexes it
  plan,          // a two-level plan (order/block_plan.hpp): blocks, their colours and staging
  // Not a buffer: an int parameter, how many elements apart the components of the dat of data
  // buffer `index` lie (dat_layout::soa). After every buffer.
  stride,
};

// Buffers that no par_loop argument supplies: the launch provides them.
constexpr bool launch_provided(buffer_role r) {
  return r == buffer_role::groups_done || r == buffer_role::index_errors || r == buffer_role::order ||
         r == buffer_role::plan;
}

// How the source is written, besides its dialect and strategy.
struct source_options {
  // Indices the kernel computes are checked against their bound on the device (constant ones
  // were checked while tracing).
  bool check_indices = true;
  // How combining writes through maps are kept apart; other than atomics only for a kernel that
  // combines_through_maps. colors: the range is positions in the order buffer, and the writes
  // are plain. blocks: the range is positions in the plan's block order, a work-group per block,
  // and the writes are staged in local memory.
  conflicts writes = conflicts::atomics;
  // How the device keeps dats of several components.
  dat_layout dats = dat_layout::aos;

  friend bool operator==(const source_options&, const source_options&) = default;
};

// Whether the device keeps p's values component by component, each `stride` elements apart.
inline bool by_components(const param& p, const source_options& o) {
  return o.dats == dat_layout::soa && p.kind != arg_kind::global && p.dim > 1;
}

// Whether the body indexes an argument by a computed component or slot.
inline bool has_computed_index(const kernel& k) {
  const auto computed = [&](id i) { return i != no_id && k.exprs[i].kind != expr_kind::literal; };
  return std::any_of(k.exprs.begin(), k.exprs.end(),
                     [&](const expr& e) { return e.kind == expr_kind::element && (computed(e.b) || computed(e.c)); });
}

inline bool checks_indices(const kernel& k, const source_options& o) {
  return o.check_indices && has_computed_index(k);
}

// Whether two elements of a loop of k can write one target at once: k combines (INC, MIN, MAX)
// into a dat through a map. (An RW or WRITE through a map whose targets meet runs coloured: the
// launch asks for conflicts::colors, exec/device/device_launch.hpp.)
inline bool combines_through_maps(const kernel& k) {
  return std::any_of(k.params.begin(), k.params.end(),
                     [](const param& p) { return combines_through_map(p.mode, p.kind); });
}

// What the index checks record of the first violation, as ints: site (0 while there is none),
// the index's low and high 32 bits, the bound, and the kernel's tag.
enum index_error_field : int { error_site, error_index_low, error_index_high, error_bound, error_kernel, error_fields };

// The site of a check: which argument, and whether the index is a map slot or a component.
constexpr int index_site(int param, bool slot) { return 1 + 2 * param + (slot ? 1 : 0); }
constexpr int site_param(int site) { return (site - 1) / 2; }
constexpr bool site_is_slot(int site) { return (site - 1) % 2 == 1; }

// Names a kernel in the record: a hash of its name, so that a source does not depend on the
// order in which a program builds its kernels.
inline std::int32_t kernel_tag(std::string_view name) {
  return static_cast<std::int32_t>(XXH32(name.data(), name.size(), 0) & 0x7fffffffu);
}

struct kernel_buffer {
  buffer_role role;
  int index;
  // The par_loop argument whose dat, global or map this is (the first, where several share
  // it); -1 for groups_done and index_errors, which the launch provides.
  int position;
  scalar_type type;
  int dim;  // values per element (partials: per work-group)
  bool is_const;

  friend bool operator==(const kernel_buffer&, const kernel_buffer&) = default;
};

constexpr bool is_global_reduction(const param& p) { return p.kind == arg_kind::global && p.mode != access::read; }

// Each distinct dat or global once (read-only if every argument on it is READ), then each
// distinct map, then the partials of each global reduction and the counter that tells the last
// work-group to combine them with the global's value, then the index checks' record, then a
// coloured loop's order or a two-level plan; then the stride of each dat kept by components.
inline std::vector<kernel_buffer> buffers(const kernel& k, const source_options& o = {}) {
  std::vector<kernel_buffer> out;
  std::vector<kernel_buffer> strides;
  const int n = static_cast<int>(k.params.size());
  for (int d = 0;; ++d) {
    int first = -1;
    bool read_only = true;
    for (int i = 0; i < n; ++i) {
      const param& p = k.params[static_cast<std::size_t>(i)];
      if (p.data != d) continue;
      if (first < 0) first = i;
      read_only = read_only && p.mode == access::read;
    }
    if (first < 0) break;
    const param& p = k.params[static_cast<std::size_t>(first)];
    out.push_back({buffer_role::data, d, first, p.type, p.dim, read_only});
    if (by_components(p, o)) strides.push_back({buffer_role::stride, d, first, scalar_type::int32, 1, true});
  }
  for (int m = 0;; ++m) {
    int first = -1;
    for (int i = 0; i < n && first < 0; ++i) {
      if (k.params[static_cast<std::size_t>(i)].map == m) first = i;
    }
    if (first < 0) break;
    out.push_back(
        {buffer_role::map, m, first, scalar_type::int32, k.params[static_cast<std::size_t>(first)].arity, true});
  }
  bool any_reduction = false;
  for (int i = 0; i < n; ++i) {
    const param& p = k.params[static_cast<std::size_t>(i)];
    if (!is_global_reduction(p)) continue;
    out.push_back({buffer_role::partials, i, i, p.type, p.dim, false});
    any_reduction = true;
  }
  if (any_reduction) out.push_back({buffer_role::groups_done, 0, -1, scalar_type::int32, 1, false});
  if (checks_indices(k, o)) out.push_back({buffer_role::index_errors, 0, -1, scalar_type::int32, 1, false});
  if (o.writes == conflicts::colors) out.push_back({buffer_role::order, 0, -1, scalar_type::int32, 1, true});
  if (o.writes == conflicts::blocks) out.push_back({buffer_role::plan, 0, -1, scalar_type::int32, 1, true});
  out.insert(out.end(), strides.begin(), strides.end());
  return out;
}

}  // namespace parloop::ir
