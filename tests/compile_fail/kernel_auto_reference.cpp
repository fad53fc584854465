// expect: by value -- not auto&
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("k", [](auto& x, auto& y) { y = x; });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
