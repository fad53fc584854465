// expect: a kernel value cannot be used as a C++ bool
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto x, auto y) {
    while (x < y) {
    }
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::READ));
}
