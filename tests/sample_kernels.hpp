// SPDX-License-Identifier: MIT
// Kernels several tests share.
#pragma once

#include <parloop/parloop.hpp>

namespace parloop_test {

// The design's flux loop: two cells' states averaged onto both cells' residuals.
inline auto flux_kernel() {
  return parloop::kernel("flux", [](auto qa, auto qb, auto ra, auto rb) {
    for (int k = 0; k < 4; ++k) {
      auto f = parloop::let("f", 0.5 * (qa[k] + qb[k]));
      ra[k] += f;
      rb[k] -= f;
    }
  });
}

// The same smoothing step as C source, in OP2's elemental style.
inline parloop::SourceKernel smooth_source_kernel() {
  return parloop::kernel_from_source("smooth", R"(
void smooth(const double* a, const double* b, double* r, double* total) {
  for (int k = 0; k < 4; ++k) {
    r[k] += 0.5 * (a[k] + b[k]);
    total[0] += a[k];
  }
}
)");
}

}  // namespace parloop_test
