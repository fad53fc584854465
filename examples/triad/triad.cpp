// SPDX-License-Identifier: MIT
// STREAM triad, a = b + s * c, on whichever backend PARLOOP_BACKEND picks (default: the
// best available), checked against a plain C++ loop.
#include <parloop/parloop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace pl = parloop;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  if (n < 0) {
    std::fprintf(stderr, "usage: triad [n >= 0]\n");
    return 2;
  }
  try {
    const pl::Runtime rt = pl::Runtime::open();
    const pl::Set points(rt, n, "points");

    std::vector<double> b0(n), c0(n);
    for (int i = 0; i < n; ++i) {
      b0[i] = std::sin(0.001 * i);
      c0[i] = std::cos(0.002 * i);
    }
    pl::Dat<double> a(points, "a"), b(points, b0, "b"), c(points, c0, "c");
    pl::Global<double> s(rt, 3.0, "s");

    auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });
    pl::par_loop(triad, points, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));

    // A device may fuse s * c + b into one rounding (an FMA): allow a few units in the last place.
    const double tolerance = 1e-14;
    double max_diff = 0.0;
    const auto result = a.host();
    for (int i = 0; i < n; ++i) max_diff = std::max(max_diff, std::fabs(result[i] - (b0[i] + 3.0 * c0[i])));
    std::printf("triad on %s: n = %d, max |a - (b + s*c)| = %g -> %s\n", rt.device_name().c_str(), n, max_diff,
                max_diff <= tolerance ? "ok" : "MISMATCH");
    return max_diff <= tolerance ? 0 : 1;
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
