// SPDX-License-Identifier: MIT
// Airfoil's data on a runtime and its iteration, for either set of kernels (kernels_dsl.hpp,
// kernels_c.hpp): OP2's sets, maps and dats, and OP2's loop, argument for argument.
#pragma once

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include <parloop/parloop.hpp>

#include "flow.hpp"
#include "mesh.hpp"

namespace airfoil {

class solver {
 public:
  // The maps check every index against their target set.
  solver(const pl::Runtime& rt, const mesh& m, const flow& c)
      : nodes_(rt, m.nnode, "nodes"),
        edges_(rt, m.nedge, "edges"),
        bedges_(rt, m.nbedge, "bedges"),
        cells_(rt, m.ncell, "cells"),
        pedge_(edges_, nodes_, 2, m.edge, "pedge"),
        pecell_(edges_, cells_, 2, m.ecell, "pecell"),
        pbedge_(bedges_, nodes_, 2, m.bedge, "pbedge"),
        pbecell_(bedges_, cells_, 1, m.becell, "pbecell"),
        pcell_(cells_, nodes_, 4, m.cell, "pcell"),
        bound_(bedges_, m.bound, "p_bound"),
        x_(nodes_, m.x, "p_x"),
        q_(cells_, free_stream(m.ncell, c), "p_q"),
        qold_(cells_, "p_qold"),
        res_(cells_, "p_res"),
        adt_(cells_, "p_adt"),
        rms_(rt, 0.0, "rms") {}

  // One iteration: save the solution, then two steps of time step, fluxes and update. The
  // rms of the second step's changes is left in rms().
  template <class Kernels>
  void iterate(const Kernels& kernels) {
    save_soln(kernels);
    for (int k = 0; k < 2; ++k) {
      adt_calc(kernels);
      res_calc(kernels);
      bres_calc(kernels);
      rms_.set_value(0.0);
      update(kernels);
    }
  }

  // The loops one at a time (a benchmark times each alone), as OP2 calls them.
  template <class Kernels>
  void save_soln(const Kernels& kernels) {
    pl::par_loop(std::get<0>(kernels), cells_, q_(pl::READ), qold_(pl::WRITE));
  }
  template <class Kernels>
  void adt_calc(const Kernels& kernels) {
    pl::par_loop(std::get<1>(kernels), cells_, x_(pl::READ, pcell_, 0), x_(pl::READ, pcell_, 1),
                 x_(pl::READ, pcell_, 2), x_(pl::READ, pcell_, 3), q_(pl::READ), adt_(pl::WRITE));
  }
  template <class Kernels>
  void res_calc(const Kernels& kernels) {
    pl::par_loop(std::get<2>(kernels), edges_, x_(pl::READ, pedge_, 0), x_(pl::READ, pedge_, 1),
                 q_(pl::READ, pecell_, 0), q_(pl::READ, pecell_, 1), adt_(pl::READ, pecell_, 0),
                 adt_(pl::READ, pecell_, 1), res_(pl::INC, pecell_, 0), res_(pl::INC, pecell_, 1));
  }
  template <class Kernels>
  void bres_calc(const Kernels& kernels) {
    pl::par_loop(std::get<3>(kernels), bedges_, x_(pl::READ, pbedge_, 0), x_(pl::READ, pbedge_, 1),
                 q_(pl::READ, pbecell_, 0), adt_(pl::READ, pbecell_, 0), res_(pl::INC, pbecell_, 0), bound_(pl::READ));
  }
  template <class Kernels>
  void update(const Kernels& kernels) {
    pl::par_loop(std::get<4>(kernels), cells_, qold_(pl::READ), q_(pl::WRITE), res_(pl::RW), adt_(pl::READ),
                 rms_(pl::INC));
  }

  // sqrt(rms / ncell), as OP2 prints it. Waits for the device.
  double rms() const { return std::sqrt(rms_.value() / cells_.size()); }
  const pl::Dat<double, 4>& q() const { return q_; }

 private:
  static std::vector<double> free_stream(int ncell, const flow& c) {
    std::vector<double> q(4 * std::size_t(ncell));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = c.qinf[i % 4];
    return q;
  }

  pl::Set nodes_, edges_, bedges_, cells_;
  pl::Map pedge_, pecell_, pbedge_, pbecell_, pcell_;
  pl::Dat<std::int32_t> bound_;
  pl::Dat<double, 2> x_;
  pl::Dat<double, 4> q_, qold_, res_;
  pl::Dat<double> adt_;
  pl::Global<double> rms_;
};

}  // namespace airfoil
