// SPDX-License-Identifier: MIT
// Second of two translation units including every header, backends too.
#include <parloop/parloop.hpp>

#include "every_header.hpp"

namespace pl = parloop;

double run_in_second_unit() {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set s(rt, 10);
  pl::Dat<double> x(s);
  pl::Global<double> sum(rt, 0.0);
  auto k = pl::kernel("fill", [](auto x, auto sum) {
    x = 3.0;
    sum += x;
  });
  pl::par_loop(k, s, x(pl::WRITE), sum(pl::INC));
  return sum.value();
}
