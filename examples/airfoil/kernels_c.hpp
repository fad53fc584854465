// SPDX-License-Identifier: MIT
// Airfoil's five kernels as an OP2 user has them: elemental C functions, one pointer per
// argument, each in a header of its own -- those of the OP2-API Airfoil (examples/op2/airfoil/,
// PARLOOP_AIRFOIL_KERNELS), embedded in the program at build time -- through
// pl::kernel_from_source. OP2's op_decl_const values become PL_CONSTANT declarations, written with
// every bit (%.17g). They run on device backends only.
#pragma once

#include <string>
#include <tuple>

#include <fmt/format.h>
#include <parloop/parloop.hpp>

#include "flow.hpp"

namespace airfoil {

inline auto c_kernels(const flow& c) {
  namespace pl = parloop;
  const std::string constants = fmt::format(
      "PL_CONSTANT double gam = {:.17g};\nPL_CONSTANT double gm1 = {:.17g};\nPL_CONSTANT double cfl = {:.17g};\n"
      "PL_CONSTANT double eps = {:.17g};\nPL_CONSTANT double qinf[4] = {{{:.17g}, {:.17g}, {:.17g}, {:.17g}}};\n",
      c.gam, c.gm1, c.cfl, c.eps, c.qinf[0], c.qinf[1], c.qinf[2], c.qinf[3]);
  const pl::include_path headers{PARLOOP_AIRFOIL_KERNELS};
  const auto from_header = [&](const char* name, const std::string& before) {
    return pl::kernel_from_source(name, fmt::format("{}#include \"{}.h\"\n", before, name), headers);
  };
  return std::tuple{from_header("save_soln", ""), from_header("adt_calc", constants),
                    from_header("res_calc", constants), from_header("bres_calc", constants), from_header("update", "")};
}

}  // namespace airfoil
