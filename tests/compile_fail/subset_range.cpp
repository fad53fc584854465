// expect: a loop over a subset runs all its elements and takes no pl::range
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Subset some(s, {1, 3});
  pl::Dat<double> x(s);
  auto k = pl::kernel("k", [](auto x) { x = 1.0; });
  pl::par_loop(k, some, pl::range{0, 1}, x(pl::WRITE));
}
