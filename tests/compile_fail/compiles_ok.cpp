// expect: success
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s), y(s), r(s);
  pl::Global<double> g(rt, 0.0), h(rt, 0.0);
  auto k = pl::kernel("k", [](auto x, auto y, auto r, auto g) {
    y = x * 2;
    r += x;
    g = pl::min(g, x);
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE), r(pl::INC), g(pl::MIN));
  // An integer INC takes an integer: a fraction converted on purpose.
  pl::Dat<std::int32_t> n(s);
  auto count = pl::kernel("count", [](auto x, auto n) { n += pl::cast<std::int32_t>(x * 0.7); });
  pl::par_loop(count, s, x(pl::READ), n(pl::INC));
  // Unqualified math on kernel values is pl::'s, found by argument-dependent lookup.
  auto unqualified = pl::kernel("unqualified", [](auto x, auto y) { y = sqrt(fabs(x)) + pow(x, 2) + min(x, 1.0); });
  pl::par_loop(unqualified, s, x(pl::READ), y(pl::WRITE));
  // Options in any order, each once; pl::autotune with a range.
  pl::par_loop(k, s, pl::range{0, 2}, pl::chunked{16, 64}, pl::conflicts::colors, x(pl::READ), y(pl::WRITE), r(pl::INC),
               g(pl::MIN));
  pl::par_loop(k, s, pl::conflicts::colors, pl::chunked{16, 64}, pl::range{0, 2}, x(pl::READ), y(pl::WRITE), r(pl::INC),
               g(pl::MIN));
  pl::par_loop(k, s, pl::range{0, 2}, pl::autotune{}, x(pl::READ), y(pl::WRITE), r(pl::INC), g(pl::MIN));
}
