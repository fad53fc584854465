// expect: an OP2 kernel in C runs unchanged through pl::kernel_from_source
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  auto k = pl::kernel("k", [](const double* x, double* y) { y[0] = x[0]; });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
}
