// expect: parameter_count_differs<3, 2>
// expect: the kernel lambda takes another number of parameters than par_loop passes arguments
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("k", [](auto x, auto y, auto z) { y = x + z; });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
