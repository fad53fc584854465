// expect: a kernel returns nothing: it writes its results into its pl::WRITE
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s);
  auto k = pl::kernel("k", [](auto x) { return x * 2.0; });
  pl::par_loop(k, s, x(pl::READ));
}
