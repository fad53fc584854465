// expect: pl::min / pl::max
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
#include <algorithm>
#include <cmath>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  auto k = pl::kernel("k", [](auto x, auto y, auto r) {
    auto a = pl::let(x);
    auto b = pl::let(y);
    r = std::min(a, b);
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::READ), r(pl::WRITE));
}
