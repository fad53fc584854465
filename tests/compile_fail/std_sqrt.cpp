// expect: a kernel value is not a C++ number
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
#include <algorithm>
#include <cmath>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  auto k = pl::kernel("k", [](auto x, auto y) { y = std::sqrt(x); });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
