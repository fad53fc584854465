// SPDX-License-Identifier: MIT
// First of two translation units including every header, backends too: a missing `inline` fails the link.
#include <parloop/parloop.hpp>

#include "every_header.hpp"

namespace pl = parloop;

double run_in_second_unit();

double run_in_first_unit() {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set s(rt, 10);
  pl::Dat<double> x(s);
  pl::Global<double> sum(rt, 0.0);
  auto k = pl::kernel("fill", [](auto x, auto sum) {
    x = 2.0;
    sum += x;
  });
  pl::par_loop(k, s, x(pl::WRITE), sum(pl::INC));
  return sum.value();
}

int main() { return run_in_first_unit() == 20.0 && run_in_second_unit() == 30.0 ? 0 : 1; }
