// SPDX-License-Identifier: MIT
// Airfoil's five kernels in the parloop DSL: OP2's formulas, operation for operation (the order
// of every sum and product is OP2's, so the history's digits are too). The constants are
// captured: they become literals in the generated code.
#pragma once

#include <tuple>

#include <parloop/parloop.hpp>

#include "flow.hpp"

namespace airfoil {

inline auto dsl_kernels(const flow& c) {
  namespace pl = parloop;

  auto save_soln = pl::kernel("save_soln", [](auto q, auto qold) {
    for (int n = 0; n < 4; ++n) qold[n] = q[n];
  });

  // The local time step of a cell: the sum over its faces of the largest wave speed times the
  // face's length, divided by the CFL number.
  auto adt_calc = pl::kernel("adt_calc", [c](auto x1, auto x2, auto x3, auto x4, auto q, auto adt) {
    auto ri = pl::let("ri", 1.0 / q[0]);
    auto u = pl::let("u", ri * q[1]);
    auto v = pl::let("v", ri * q[2]);
    auto cs = pl::let("c", pl::sqrt(c.gam * c.gm1 * (ri * q[3] - 0.5 * (u * u + v * v))));
    auto dx = pl::let("dx", x2[0] - x1[0]);
    auto dy = pl::let("dy", x2[1] - x1[1]);
    adt = pl::fabs(u * dy - v * dx) + cs * pl::sqrt(dx * dx + dy * dy);
    dx = x3[0] - x2[0];
    dy = x3[1] - x2[1];
    adt += pl::fabs(u * dy - v * dx) + cs * pl::sqrt(dx * dx + dy * dy);
    dx = x4[0] - x3[0];
    dy = x4[1] - x3[1];
    adt += pl::fabs(u * dy - v * dx) + cs * pl::sqrt(dx * dx + dy * dy);
    dx = x1[0] - x4[0];
    dy = x1[1] - x4[1];
    adt += pl::fabs(u * dy - v * dx) + cs * pl::sqrt(dx * dx + dy * dy);
    adt = adt / c.cfl;
  });

  // The flux across an interior edge, with scalar dissipation: added to the first cell's
  // residual, taken from the second's.
  auto res_calc =
      pl::kernel("res_calc", [c](auto x1, auto x2, auto q1, auto q2, auto adt1, auto adt2, auto res1, auto res2) {
        auto dx = pl::let("dx", x1[0] - x2[0]);
        auto dy = pl::let("dy", x1[1] - x2[1]);
        auto ri = pl::let("ri", 1.0 / q1[0]);
        auto p1 = pl::let("p1", c.gm1 * (q1[3] - 0.5 * ri * (q1[1] * q1[1] + q1[2] * q1[2])));
        auto vol1 = pl::let("vol1", ri * (q1[1] * dy - q1[2] * dx));
        ri = 1.0 / q2[0];
        auto p2 = pl::let("p2", c.gm1 * (q2[3] - 0.5 * ri * (q2[1] * q2[1] + q2[2] * q2[2])));
        auto vol2 = pl::let("vol2", ri * (q2[1] * dy - q2[2] * dx));
        auto mu = pl::let("mu", 0.5 * (adt1 + adt2) * c.eps);
        auto f = pl::let("f", 0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]));
        res1[0] += f;
        res2[0] -= f;
        f = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
        res1[1] += f;
        res2[1] -= f;
        f = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
        res1[2] += f;
        res2[2] -= f;
        f = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
        res1[3] += f;
        res2[3] -= f;
      });

  // A boundary edge: the wall (bound 1) takes the pressure force; the far field the flux
  // against the free stream.
  auto bres_calc = pl::kernel("bres_calc", [c](auto x1, auto x2, auto q1, auto adt1, auto res1, auto bound) {
    const auto& qinf = c.qinf;
    auto dx = pl::let("dx", x1[0] - x2[0]);
    auto dy = pl::let("dy", x1[1] - x2[1]);
    auto ri = pl::let("ri", 1.0 / q1[0]);
    auto p1 = pl::let("p1", c.gm1 * (q1[3] - 0.5 * ri * (q1[1] * q1[1] + q1[2] * q1[2])));
    pl::if_(bound == 1, [&] {
      res1[1] += p1 * dy;
      res1[2] += -p1 * dx;
    }).else_([&] {
      auto vol1 = pl::let("vol1", ri * (q1[1] * dy - q1[2] * dx));
      const double ri2 = 1.0 / qinf[0];
      const double p2 = c.gm1 * (qinf[3] - 0.5 * ri2 * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
      auto vol2 = pl::let("vol2", ri2 * (qinf[1] * dy - qinf[2] * dx));
      auto mu = pl::let("mu", adt1 * c.eps);
      auto f = pl::let("f", 0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]));
      res1[0] += f;
      f = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
      res1[1] += f;
      f = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
      res1[2] += f;
      f = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
      res1[3] += f;
    });
  });

  // The explicit step from the saved solution, and the sum of the squared changes.
  auto update = pl::kernel("update", [](auto qold, auto q, auto res, auto adt, auto rms) {
    auto adti = pl::let("adti", 1.0 / adt);
    for (int n = 0; n < 4; ++n) {
      auto del = pl::let("del", adti * res[n]);
      q[n] = qold[n] - del;
      res[n] = 0.0;
      rms += del * del;
    }
  });

  return std::tuple{save_soln, adt_calc, res_calc, bres_calc, update};
}

}  // namespace airfoil
