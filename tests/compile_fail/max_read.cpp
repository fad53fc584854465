// expect: an argument declared pl::MAX can only be updated as g = pl::max(g, v)
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto x, auto g) { x = g; });
  pl::par_loop(k, s, x(pl::WRITE), g(pl::MAX));
}
