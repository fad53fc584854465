// expect: an integer argument declared pl::INC takes integers
// expect: not_fraction_into_integer_increment<1
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set edges(rt, 4), cells(rt, 2);
  pl::Map m(edges, cells, 1, std::vector<pl::index_t>{0, 1, 0, 1});
  pl::Dat<double> w(edges);
  pl::Dat<std::int32_t> a(cells);
  auto k = pl::kernel("k", [](auto w, auto a) { a += w * 0.7; });
  pl::par_loop(k, edges, w(pl::READ), a(pl::INC, m, 0));
}
