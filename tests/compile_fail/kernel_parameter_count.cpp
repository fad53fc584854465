// expect: parameter_count_differs<1, 2>
// expect: the kernel lambda takes another number of parameters than par_loop passes arguments
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("k", [](auto y) { y = 1.0; });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
