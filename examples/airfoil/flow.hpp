// SPDX-License-Identifier: MIT
// Airfoil's constants, set as OP2 sets them: from float literals into doubles (1.4f is not
// 1.4), which shows in the digits of the rms history.
#pragma once

#include <array>
#include <cmath>

namespace airfoil {

struct flow {
  double gam = 1.4f;
  double gm1 = gam - 1.0f;
  double cfl = 0.9f;
  double eps = 0.05f;
  // The free stream: density and pressure 1 at Mach 0.4 along x.
  std::array<double, 4> qinf = [this] {
    const double mach = 0.4f, p = 1.0f, r = 1.0f;
    const double u = std::sqrt(gam * p / r) * mach;
    const double e = p / (r * gm1) + 0.5f * u * u;
    return std::array<double, 4>{r, r * u, 0.0f, r * e};
  }();
};

}  // namespace airfoil
