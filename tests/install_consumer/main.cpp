// SPDX-License-Identifier: MIT
// The consumer's program: one indirect loop, checked.
#include <parloop/parloop.hpp>

#include <cstdio>
#include <vector>

namespace pl = parloop;

int main() {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set nodes(rt, 3), edges(rt, 2);
  const pl::Map e2n(edges, nodes, 2, std::vector<pl::index_t>{0, 1, 1, 2});
  pl::Dat<double> degree(nodes);
  auto count = pl::kernel("count", [](auto a, auto b) {
    a += 1.0;
    b += 1.0;
  });
  pl::par_loop(count, edges, degree(pl::INC, e2n, 0), degree(pl::INC, e2n, 1));
  const auto d = degree.host();
  std::printf("parloop %s: degrees %g %g %g\n", pl::version_string, d[0], d[1], d[2]);
  return d[0] == 1.0 && d[1] == 2.0 && d[2] == 1.0 ? 0 : 1;
}
