// SPDX-License-Identifier: MIT
// An OP2 kernel ported unchanged: an elemental C function (one pointer per argument, const for
// READ, a file-scope constant as PL_CONSTANT) run through pl::kernel_from_source on a device, and
// the same kernel as a lambda on the host backend, the reference. Then what a computed index out
// of range does: the same error on both.
#include <parloop/parloop.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace pl = parloop;

namespace {

// OP2 style: the flux across an edge from the states of its two cells, added to one and taken
// from the other. `gm1` is a file-scope constant, as OP2 codes declare theirs.
constexpr const char* flux_c = R"(
PL_CONSTANT double gm1 = 0.4;
void edge_flux(const double* q, double* r) {
  const double f = gm1 * (q[1] - q[0]);
  r[0] += f;
  r[1] -= f;
}
)";

std::vector<double> run(const pl::Runtime& rt, bool from_source) {
  const int cells = 1000;
  const pl::Set cell_set(rt, cells, "cells"), edge_set(rt, cells - 1, "edges");
  std::vector<pl::index_t> ends;
  for (int e = 0; e + 1 < cells; ++e) {
    ends.push_back(e);
    ends.push_back(e + 1);
  }
  const pl::Map e2c(edge_set, cell_set, 2, ends, "e2c");
  std::vector<double> q0(cells);
  for (int c = 0; c < cells; ++c) q0[static_cast<std::size_t>(c)] = std::sin(0.01 * c);
  pl::Dat<double> q(cell_set, q0, "q"), r(cell_set, "r");
  if (from_source) {
    const auto flux = pl::kernel_from_source("edge_flux", flux_c);
    pl::par_loop(flux, edge_set, q(pl::READ, e2c), r(pl::INC, e2c));
  } else {
    const auto flux = pl::kernel("edge_flux", [](auto q, auto r) {
      auto f = pl::let("f", 0.4 * (q[1] - q[0]));
      r[0] += f;
      r[1] -= f;
    });
    pl::par_loop(flux, edge_set, q(pl::READ, e2c), r(pl::INC, e2c));
  }
  const auto v = r.host();
  return {v.begin(), v.end()};
}

}  // namespace

int main() {
  const pl::Runtime device = pl::Runtime::open();
  if (device.kind() == pl::backend_kind::host) {
    std::printf("no device backend here: a kernel from C source needs one (PARLOOP_BACKEND=opencl)\n");
    return 0;
  }
  const auto got = run(device, true);
  const auto want = run(pl::Runtime::open(pl::backend_kind::host), false);
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::fmax(worst, std::fabs(got[i] - want[i]));
  std::printf("edge_flux from C source on %s: max |device - host lambda| = %.3g -> %s\n", device.device_name().c_str(),
              worst, worst <= 1e-15 ? "ok" : "WRONG");

  // A computed index out of range: the host throws in the loop, a device when the host next
  // reads its results; both say which kernel, argument, bound and index.
  for (const pl::Runtime& rt : {pl::Runtime::open(pl::backend_kind::host), device}) {
    const pl::Set s(rt, 4);
    pl::Dat<double, 3> v(s);
    pl::Dat<std::int32_t> which(s, {0, 1, 2, 3});
    pl::Dat<double> out(s);
    try {
      pl::par_loop(pl::kernel("pick", [](auto v, auto i, auto out) { out = v[i]; }), s, v(pl::READ), which(pl::READ),
                   out(pl::WRITE));
      (void)out.host();
    } catch (const pl::trace_error& e) {
      std::printf("%s: %s\n", std::string(rt.name()).c_str(), e.what());
    }
  }
  return worst <= 1e-15 ? 0 : 1;
}
