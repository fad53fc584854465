// SPDX-License-Identifier: MIT
// OP2's HDF5 Airfoil, written against OP2's API as OP2's users write it: the mesh, the flow's
// start and the constants read from new_grid.h5 by op_decl_set_hdf5, op_decl_map_hdf5,
// op_decl_dat_hdf5 and op_get_const_hdf5 (a dataset the file lacks is NULL: m_test and p_test are
// asked for and not needed), the kernels of airfoil.cpp, and the final p_q written back with
// op_fetch_data_hdf5_file. It prints what airfoil_op2 prints, so the two agree line by line. Given
// DUMP.h5, it writes the mesh as declared there first, with the constants (op_dump_to_hdf5 and
// op_write_const_hdf5, as OP2's does), a file it reads again as it read MESH.h5.
//
//   airfoil_op2_hdf5 [MESH.h5 [ITERATIONS [DIGITS [OUT.h5 [DUMP.h5]]]]]   (default ./new_grid.h5, 1000, 5)
//
// `airfoil --mesh new_grid.dat --iterations 0 --write-mesh new_grid.h5` makes the file (OP2's
// convert_mesh's layout). airfoil_op2_hdf5_mpi is the same over MPI ranks: each rank reads its
// own block of every set (OP2's split), then op_partition distributes the mesh.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#ifdef AIRFOIL_OP2_MPI
#include "op_lib_mpi.h"
#endif
#include "op_hdf5.h"
#include "op_seq.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

#include "airfoil_steps.h"

int main(int argc, char** argv) {
  op_init(argc, argv, 1);
  const char* file = argc > 1 ? argv[1] : "new_grid.h5";
  const int iterations = argc > 2 ? atoi(argv[2]) : 1000;
  const int digits = argc > 3 ? atoi(argv[3]) : 5;
  const char* out = argc > 4 && argv[4][0] != '\0' ? argv[4] : NULL;
  const char* dump = argc > 5 ? argv[5] : NULL;
  if (iterations < 1 || digits < 1 || digits > 17) {
    op_printf("usage: airfoil_op2_hdf5 [MESH.h5 [ITERATIONS >= 1 [DIGITS 1..17 [OUT.h5 [DUMP.h5]]]]]\n");
    op_exit();
    return 2;
  }

  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set edges = op_decl_set_hdf5(file, "edges");
  op_set bedges = op_decl_set_hdf5(file, "bedges");
  op_set cells = op_decl_set_hdf5(file, "cells");
  op_map pedge = op_decl_map_hdf5(edges, nodes, 2, file, "pedge");
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, file, "pecell");
  op_map pbedge = op_decl_map_hdf5(bedges, nodes, 2, file, "pbedge");
  op_map pbecell = op_decl_map_hdf5(bedges, cells, 1, file, "pbecell");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");
  op_map m_test = op_decl_map_hdf5(cells, nodes, 4, file, "m_test");
  if (m_test == NULL) op_printf("m_test not found\n");
  op_dat p_bound = op_decl_dat_hdf5(bedges, 1, "int", file, "p_bound");
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  op_dat p_q = op_decl_dat_hdf5(cells, 4, "double", file, "p_q");
  op_dat p_qold = op_decl_dat_hdf5(cells, 4, "double", file, "p_qold");
  op_dat p_adt = op_decl_dat_hdf5(cells, 1, "double", file, "p_adt");
  op_dat p_res = op_decl_dat_hdf5(cells, 4, "double", file, "p_res");
  op_dat p_test = op_decl_dat_hdf5(cells, 4, "double", file, "p_test");
  if (p_test == NULL) op_printf("p_test not found\n");
  if (pedge == NULL || pecell == NULL || pbedge == NULL || pbecell == NULL || pcell == NULL || p_bound == NULL ||
      p_x == NULL || p_q == NULL || p_qold == NULL || p_adt == NULL || p_res == NULL) {
    op_printf("airfoil_op2_hdf5: %s lacks Airfoil's maps or dats\n", file);
    op_exit();
    return 1;
  }

  op_get_const_hdf5("gam", 1, "double", (char*)&gam, file);
  op_get_const_hdf5("gm1", 1, "double", (char*)&gm1, file);
  op_get_const_hdf5("cfl", 1, "double", (char*)&cfl, file);
  op_get_const_hdf5("eps", 1, "double", (char*)&eps, file);
  op_get_const_hdf5("mach", 1, "double", (char*)&mach, file);
  op_get_const_hdf5("alpha", 1, "double", (char*)&alpha, file);
  op_get_const_hdf5("qinf", 4, "double", (char*)qinf, file);
  if (dump != NULL) {
    op_dump_to_hdf5(dump);
    op_write_const_hdf5("gam", 1, "double", (char*)&gam, dump);
    op_write_const_hdf5("gm1", 1, "double", (char*)&gm1, dump);
    op_write_const_hdf5("cfl", 1, "double", (char*)&cfl, dump);
    op_write_const_hdf5("eps", 1, "double", (char*)&eps, dump);
    op_write_const_hdf5("mach", 1, "double", (char*)&mach, dump);
    op_write_const_hdf5("alpha", 1, "double", (char*)&alpha, dump);
    op_write_const_hdf5("qinf", 4, "double", (char*)qinf, dump);
  }
  airfoil_constants_and_partition(edges, pecell, p_x);

  airfoil_iterate(iterations, digits, cells, edges, bedges, pedge, pecell, pbedge, pbecell, pcell, p_bound, p_x, p_q,
                  p_qold, p_adt, p_res);
  if (out != NULL) op_fetch_data_hdf5_file(p_q, out);
  op_exit();
  return 0;
}
