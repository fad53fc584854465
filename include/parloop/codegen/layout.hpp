// SPDX-License-Identifier: MIT
// The parameters of a generated kernel, in order: what a backend binds, and what the
// emitters declare. After `start` and `end` come the buffers listed here.
#pragma once

#include <cstdint>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg_kind.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::codegen {

enum class buffer_role : std::uint8_t {
  data,      // a dat's or global's values: index is ir::param::data
  map,       // a map's values: index is ir::param::map
  partials,  // one partial result per work-group of a global reduction: index is the parameter
};

struct kernel_buffer {
  buffer_role role;
  int index;
  ir::scalar_type type;
  bool is_const;
};

constexpr bool is_global_reduction(const ir::param& p) {
  return p.kind == arg_kind::global && p.mode != access::read;
}

// Each distinct dat or global once (read-only if every argument on it is READ; a global only
// reduced into is not passed: its partials are), then each distinct map, then the partials.
inline std::vector<kernel_buffer> buffers(const ir::kernel& k) {
  std::vector<kernel_buffer> out;
  for (int d = 0;; ++d) {
    bool exists = false, passed = false, read_only = true;
    ir::scalar_type type = ir::scalar_type::int32;
    for (const ir::param& p : k.params) {
      if (p.data != d) continue;
      exists = true;
      type = p.type;
      if (is_global_reduction(p)) continue;
      passed = true;
      read_only = read_only && p.mode == access::read;
    }
    if (!exists) break;
    if (passed) out.push_back({buffer_role::data, d, type, read_only});
  }
  int maps = 0;
  for (const ir::param& p : k.params) maps = p.map + 1 > maps ? p.map + 1 : maps;
  for (int m = 0; m < maps; ++m) out.push_back({buffer_role::map, m, ir::scalar_type::int32, true});
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    if (is_global_reduction(k.params[i])) out.push_back({buffer_role::partials, static_cast<int>(i), k.params[i].type, false});
  }
  return out;
}

}  // namespace parloop::codegen
