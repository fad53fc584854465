// case AUTOTUNE_THEN_STRATEGY: pl::autotune chooses the launch strategy and pl::conflicts by timing
// case STRATEGY_THEN_AUTOTUNE: pl::autotune chooses the launch strategy and pl::conflicts by timing
// case CONFLICTS_THEN_AUTOTUNE: pl::autotune chooses the launch strategy and pl::conflicts by timing
// case TWO_STRATEGIES: par_loop names a launch strategy more than once
// case TWO_RANGES: par_loop names pl::range more than once
// case TWO_CONFLICTS: par_loop names pl::conflicts more than once
// case TWO_AUTOTUNES: par_loop names pl::autotune more than once
// SPDX-License-Identifier: MIT
// par_loop's options mean the same in any order: one named twice, or pl::autotune with what it
// chooses, in either order, is refused at compile time.
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("k", [](auto x, auto y) { y = x * 2.0; });
#if defined(AUTOTUNE_THEN_STRATEGY)
  pl::par_loop(k, s, pl::autotune{}, pl::chunked{16, 64}, x(pl::READ), y(pl::WRITE));
#elif defined(STRATEGY_THEN_AUTOTUNE)
  pl::par_loop(k, s, pl::chunked{16, 64}, pl::autotune{}, x(pl::READ), y(pl::WRITE));
#elif defined(CONFLICTS_THEN_AUTOTUNE)
  pl::par_loop(k, s, pl::conflicts::colors, pl::autotune{}, x(pl::READ), y(pl::WRITE));
#elif defined(TWO_STRATEGIES)
  pl::par_loop(k, s, pl::grid_stride{128, 2}, pl::chunked{16, 64}, x(pl::READ), y(pl::WRITE));
#elif defined(TWO_RANGES)
  pl::par_loop(k, s, pl::range{0, 2}, pl::range{1, 4}, x(pl::READ), y(pl::WRITE));
#elif defined(TWO_CONFLICTS)
  pl::par_loop(k, s, pl::conflicts::colors, pl::range{0, 2}, pl::conflicts::blocks, x(pl::READ), y(pl::WRITE));
#elif defined(TWO_AUTOTUNES)
  pl::par_loop(k, s, pl::autotune{}, pl::range{0, 2}, pl::autotune{}, x(pl::READ), y(pl::WRITE));
#endif
}
