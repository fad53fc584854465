// expect: a Dat holds float, double, std::int32_t or std::int64_t
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<unsigned> x(s);
}
