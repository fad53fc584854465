// expect: each argument of par_loop is dat(mode), dat(mode, map, slot), dat(mode, map) or global(mode), after an
// optional strategy SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto x) { x = 1.0; });
  pl::par_loop(k, s, x);
}
