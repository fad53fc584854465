// SPDX-License-Identifier: MIT
// Airfoil written against OP2's API, as OP2's users write it: the mesh read from OP2's
// new_grid.dat layout, OP2's sets, maps and dats, constants by op_decl_const, and one kernel per
// header beside this file (the same headers the native example's --kernels c compiles). Built
// against parloop's OP2 API it is one executable that runs on the backend PARLOOP_BACKEND names.
// The rms is printed as the native example prints it, so that the two can be compared:
//
//   airfoil_op2 [MESH [ITERATIONS [DIGITS]]]    (default ./new_grid.dat, 1000, 5)
//
// `airfoil --write-mesh FILE` writes a generated mesh in this layout.
//
// airfoil_op2_mpi is the same application over MPI ranks, as OP2's MPI applications are written:
// each rank declares its block of every set (here each reads the file and takes its block; a
// large run would read only its part), the maps' rows from its block in global numbers, then
// op_partition distributes the mesh. It prints the same history.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// The constants the kernels read, declared before OP2's header as OP2 applications do.
double gam, gm1, cfl, eps, qinf[4];

#ifdef AIRFOIL_OP2_MPI
#include "op_lib_mpi.h"
#endif
#include "op_seq.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

#include "airfoil_steps.h"

// Reads `count` rows of `per_row` values in `format` (one value's) into `out`; 0 on a fault.
static int read_rows(FILE* fp, int count, int per_row, const char* format, void* out, size_t size) {
  for (int n = 0; n < count * per_row; ++n) {
    if (fscanf(fp, format, (char*)out + (size_t)n * size) != 1) return 0;
  }
  return 1;
}

// This rank's block of a set of n elements: [*first, *first + return).
static int block(int n, int rank, int ranks, int* first) {
  *first = (int)((long long)n * rank / ranks);
  return (int)((long long)n * (rank + 1) / ranks) - *first;
}

int main(int argc, char** argv) {
  op_init(argc, argv, 1);
  const char* mesh = argc > 1 ? argv[1] : "./new_grid.dat";
  const int iterations = argc > 2 ? atoi(argv[2]) : 1000;
  const int digits = argc > 3 ? atoi(argv[3]) : 5;
  if (iterations < 1 || digits < 1 || digits > 17) {
    op_printf("usage: airfoil_op2 [MESH [ITERATIONS >= 1 [DIGITS 1..17]]]\n");
    op_exit();
    return 2;
  }

  FILE* fp = fopen(mesh, "r");
  if (fp == NULL) {
    op_printf("airfoil_op2: cannot open %s\n", mesh);
    op_exit();
    return 1;
  }
  int nnode, ncell, nedge, nbedge;
  if (fscanf(fp, "%d %d %d %d", &nnode, &ncell, &nedge, &nbedge) != 4 || nnode < 1 || ncell < 1 || nedge < 1 ||
      nbedge < 1) {
    op_printf("airfoil_op2: %s does not start with four counts\n", mesh);
    op_exit();
    return 1;
  }
  int* cell = (int*)malloc(4 * sizeof(int) * ncell);
  int* edge = (int*)malloc(2 * sizeof(int) * nedge);
  int* ecell = (int*)malloc(2 * sizeof(int) * nedge);
  int* bedge = (int*)malloc(2 * sizeof(int) * nbedge);
  int* becell = (int*)malloc(sizeof(int) * nbedge);
  int* bound = (int*)malloc(sizeof(int) * nbedge);
  double* x = (double*)malloc(2 * sizeof(double) * nnode);
  double* q = (double*)malloc(4 * sizeof(double) * ncell);
  double* res = (double*)calloc(4 * (size_t)ncell, sizeof(double));
  int ok = read_rows(fp, nnode, 2, "%lf", x, sizeof(double)) && read_rows(fp, ncell, 4, "%d", cell, sizeof(int));
  for (int n = 0; ok && n < nedge; ++n) {
    ok = fscanf(fp, "%d %d %d %d", &edge[2 * n], &edge[2 * n + 1], &ecell[2 * n], &ecell[2 * n + 1]) == 4;
  }
  for (int n = 0; ok && n < nbedge; ++n) {
    ok = fscanf(fp, "%d %d %d %d", &bedge[2 * n], &bedge[2 * n + 1], &becell[n], &bound[n]) == 4;
  }
  fclose(fp);
  if (!ok) {
    op_printf("airfoil_op2: %s ends early or holds something other than numbers\n", mesh);
    op_exit();
    return 1;
  }

  gam = 1.4f;
  gm1 = gam - 1.0f;
  cfl = 0.9f;
  eps = 0.05f;
  const double mach = 0.4f, p = 1.0f, r = 1.0f;
  const double u = sqrt(gam * p / r) * mach;
  const double e = p / (r * gm1) + 0.5f * u * u;
  qinf[0] = r;
  qinf[1] = r * u;
  qinf[2] = 0.0f;
  qinf[3] = r * e;
  for (int n = 0; n < ncell; ++n) {
    for (int m = 0; m < 4; ++m) q[4 * n + m] = qinf[m];
  }

  // Each rank declares its block of each set (one process: the whole mesh).
  int rank = 0, ranks = 1;
#ifdef AIRFOIL_OP2_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
  int n0, c0, e0, b0;
  const int my_nodes = block(nnode, rank, ranks, &n0), my_cells = block(ncell, rank, ranks, &c0);
  const int my_edges = block(nedge, rank, ranks, &e0), my_bedges = block(nbedge, rank, ranks, &b0);
  op_set nodes = op_decl_set(my_nodes, "nodes");
  op_set edges = op_decl_set(my_edges, "edges");
  op_set bedges = op_decl_set(my_bedges, "bedges");
  op_set cells = op_decl_set(my_cells, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, edge + 2 * e0, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, ecell + 2 * e0, "pecell");
  op_map pbedge = op_decl_map(bedges, nodes, 2, bedge + 2 * b0, "pbedge");
  op_map pbecell = op_decl_map(bedges, cells, 1, becell + b0, "pbecell");
  op_map pcell = op_decl_map(cells, nodes, 4, cell + 4 * c0, "pcell");
  op_dat p_bound = op_decl_dat(bedges, 1, "int", bound + b0, "p_bound");
  op_dat p_x = op_decl_dat(nodes, 2, "double", x + 2 * n0, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q + 4 * c0, "p_q");
  op_dat p_res = op_decl_dat(cells, 4, "double", res + 4 * c0, "p_res");
  // OP2 copies what it is given: the arrays may go now.
  free(cell);
  free(edge);
  free(ecell);
  free(bedge);
  free(becell);
  free(bound);
  free(x);
  free(q);
  free(res);

  airfoil_constants_and_partition(cells, pecell, p_x);
  op_dat p_qold = op_decl_dat_temp(cells, 4, "double", (double*)NULL, "p_qold");
  op_dat p_adt = op_decl_dat_temp(cells, 1, "double", (double*)NULL, "p_adt");

  airfoil_iterate(iterations, digits, cells, edges, bedges, pedge, pecell, pbedge, pbecell, pcell, p_bound, p_x, p_q,
                  p_qold, p_adt, p_res);
  op_free_dat_temp(p_qold);
  op_free_dat_temp(p_adt);
  op_exit();
  return 0;
}
