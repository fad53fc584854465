// expect: an expression is a formula, not a variable, and cannot be updated: make a local of it, auto t = pl::let
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  auto k = pl::kernel("k", [](auto x, auto y) {
    auto t = x * 2.0;
    t += 1.0;
    y = t;
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
