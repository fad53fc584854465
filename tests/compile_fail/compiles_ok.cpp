// expect: success
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto x, auto y, auto r, auto g) { y = x * 2; r += x; g = pl::min(g, x); });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE), r(pl::INC), g(pl::MIN));
}
