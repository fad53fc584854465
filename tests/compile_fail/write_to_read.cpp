// expect: cannot write to an argument declared pl::READ
// expect: rule::not_read_only<1, parloop::access::read>
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto y, auto x) { x = y; });
  pl::par_loop(k, s, y(pl::READ), x(pl::READ));
}
