// expect: a pl::for_ body taking int i
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  auto k = pl::kernel("k", [](auto x, auto y) { pl::for_(0, 4, [&](int i) { y += x * i; }); });
  pl::par_loop(k, s, x(pl::READ), y(pl::INC));
}
