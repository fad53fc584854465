// SPDX-License-Identifier: MIT
// Jacobi iteration written against OP2's API, as an OP2 application is: OP2's headers, a kernel
// per header beside this file, constants declared by op_decl_const. Built against parloop's OP2
// API it is one executable whose loops run on the backend PARLOOP_BACKEND names (host, threads,
// opencl, cuda). The Laplace problem on an n x n grid of nodes with u = 1 on the boundary: its
// solution is 1 everywhere; the same iteration as plain loops checks every value.
//
//   jacobi_op2 [n] [iterations] [halo]
//
// jacobi_op2_mpi is the same application over MPI ranks (op_lib_mpi.h), reading its mesh as OP2's
// MPI applications do: rank MPI_ROOT (0, as op_lib_mpi.h defines it) makes the grid and sends it
// out (MPI_Bcast, and each rank's block of the weights by MPI_Scatterv); each rank declares its
// block of the nodes and edges, and op_partition distributes them (with `halo`, op_halo_create
// keeps the blocks as declared); each rank checks its block, read back with op_fetch_data and
// with op_mpi_get_data.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The constants the kernels read, declared before OP2's header as OP2 applications do.
double alpha;
int centre;

#ifdef JACOBI_OP2_MPI
#include "op_lib_mpi.h"
#endif
#include "op_seq.h"

#include "report.h"
#include "res.h"
#include "update.h"

// This rank's block of n elements: [*first, *first + return).
static int block(int n, int rank, int ranks, int* first) {
  *first = (int)((long long)n * rank / ranks);
  return (int)((long long)n * (rank + 1) / ranks) - *first;
}

// The 5-point stencil as edges: a self edge of weight -1, one edge of weight 1/4 per interior
// neighbour; a neighbour on the boundary (u = 1) adds 1/4 to the right-hand side.
static void make_grid(int n, int* edge_nodes, double* weight, double* r, int* count) {
  int edges_count = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int node = i * n + j;
      const int di[] = {0, -1, 1, 0, 0}, dj[] = {0, 0, 0, -1, 1};
      for (int k = 0; k < 5; ++k) {
        const int ni = i + di[k], nj = j + dj[k];
        if (ni < 0 || ni >= n || nj < 0 || nj >= n) {
          r[node] += 0.25;
          continue;
        }
        edge_nodes[2 * edges_count] = node;
        edge_nodes[2 * edges_count + 1] = ni * n + nj;
        weight[edges_count++] = k == 0 ? -1.0 : 0.25;
      }
    }
  }
  *count = edges_count;
}

int main(int argc, char** argv) {
  op_init(argc, argv, 2);
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int iterations = argc > 2 ? atoi(argv[2]) : 200;
  if (n < 3 || iterations < 1) {
    op_printf("usage: jacobi_op2 [n >= 3] [iterations >= 1]\n");
    op_exit();
    return 2;
  }
  const int nodes_count = n * n;
  int rank = 0, ranks = 1;
#ifdef JACOBI_OP2_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
  int* edge_nodes = (int*)malloc(sizeof(int) * 2 * 5 * nodes_count);
  double* weight = (double*)malloc(sizeof(double) * 5 * nodes_count);
  double* r = (double*)calloc(nodes_count, sizeof(double));
  double* u = (double*)calloc(nodes_count, sizeof(double));
  int edges_count = 0;
#ifdef JACOBI_OP2_MPI
  if (rank == MPI_ROOT) make_grid(n, edge_nodes, weight, r, &edges_count);
  MPI_Bcast(&edges_count, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
  MPI_Bcast(edge_nodes, 2 * edges_count, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
  MPI_Bcast(r, nodes_count, MPI_DOUBLE, MPI_ROOT, MPI_COMM_WORLD);
  MPI_Bcast(weight, edges_count, MPI_DOUBLE, MPI_ROOT, MPI_COMM_WORLD);
#else
  make_grid(n, edge_nodes, weight, r, &edges_count);
#endif
  int n0, e0;
  const int my_nodes = block(nodes_count, rank, ranks, &n0), my_edges = block(edges_count, rank, ranks, &e0);
#ifdef JACOBI_OP2_MPI
  // Each rank's block of the weights, from rank MPI_ROOT, as OP2's applications scatter theirs
  // (every rank has the whole grid too, for the plain loops' check below).
  int *counts = (int*)malloc(sizeof(int) * ranks), *starts = (int*)malloc(sizeof(int) * ranks);
  for (int q = 0; q < ranks; ++q) counts[q] = block(edges_count, q, ranks, &starts[q]);
  double* my_weight = (double*)malloc(sizeof(double) * (my_edges > 0 ? my_edges : 1));
  MPI_Scatterv(weight, counts, starts, MPI_DOUBLE, my_weight, my_edges, MPI_DOUBLE, MPI_ROOT, MPI_COMM_WORLD);
  free(counts);
  free(starts);
#else
  double* my_weight = weight + e0;
#endif
  op_set nodes = op_decl_set(my_nodes, "nodes");
  op_set edges = op_decl_set(my_edges, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge_nodes + 2 * e0, "pedge");
  op_dat p_A = op_decl_dat(edges, 1, "double", my_weight, "p_A");
  op_dat p_r = op_decl_dat(nodes, 1, "double", r + n0, "p_r");
  op_dat p_u = op_decl_dat(nodes, 1, "double", u + n0, "p_u");
  if (argc > 3 && strcmp(argv[3], "halo") == 0) {
    op_halo_create();
  } else {
    op_partition("PTSCOTCH", "KWAY", nodes, pedge, NULL);
  }
  op_dat p_du = op_decl_dat_temp(nodes, 1, "double", (double*)NULL, "p_du");

  alpha = 1.0;
  op_decl_const(1, "double", &alpha);
  centre = (n / 2) * n + n / 2;
  op_decl_const(1, "int", &centre);
  op_diagnostic_output();

  double start_cpu, start_wall, end_cpu, end_wall;
  op_timers(&start_cpu, &start_wall);
  double beta = 1.0, u_sum = 0.0, u_max = 0.0;
  for (int iter = 1; iter <= iterations; ++iter) {
    op_par_loop(res, "res", edges, op_arg_dat(p_A, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_u, 1, pedge, 1, "double", OP_READ), op_arg_dat(p_du, 0, pedge, 1, "double", OP_INC),
                op_arg_gbl(&beta, 1, "double", OP_READ));
    u_sum = 0.0;
    u_max = 0.0;
    op_par_loop(update, "update", nodes, op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_du, -1, OP_ID, 1, "double", OP_RW), op_arg_dat(p_u, -1, OP_ID, 1, "double", OP_INC),
                op_arg_gbl(&u_sum, 1, "double", OP_INC), op_arg_gbl(&u_max, 1, "double", OP_MAX));
    if (iter % 50 == 0 || iter == iterations) {
      op_printf(" %4d  u max/rms = %f %f\n", iter, u_max, sqrt(u_sum / nodes_count));
    }
  }
  op_par_loop(report, "report", nodes, op_arg_dat(p_u, -1, OP_ID, 1, "double", OP_READ), op_arg_idx(-1, OP_ID));
  op_timers(&end_cpu, &end_wall);

  // The same iteration as plain loops, in the same order of additions on each node.
  double* want = (double*)calloc(nodes_count, sizeof(double));
  double* dwant = (double*)calloc(nodes_count, sizeof(double));
  for (int iter = 0; iter < iterations; ++iter) {
    for (int e = 0; e < edges_count; ++e) dwant[edge_nodes[2 * e]] += beta * weight[e] * want[edge_nodes[2 * e + 1]];
    for (int v = 0; v < nodes_count; ++v) {
      want[v] += dwant[v] + alpha * r[v];
      dwant[v] = 0.0;
    }
  }
  // This rank's block, in the numbering it declared.
  op_fetch_data(p_u, u);
  double worst = 0.0;
  for (int v = 0; v < my_nodes; ++v) worst = fmax(worst, fabs(u[v] - want[n0 + v]));
  // The same block as OP2's library reads it, in storage released with free().
  op_dat copy = op_mpi_get_data(p_u);
  if (copy->set->size != my_nodes || memcmp(copy->data, u, (size_t)my_nodes * sizeof(double)) != 0) worst = 1.0;
  free(copy->data);
  free(copy->set);
  free(copy);
  // Halo elements (OP2's exec_size and nonexec_size of this rank's share): none on one rank, some
  // on several, where edges cross between the ranks' parts.
  idx_g_t halo = (idx_g_t)nodes->exec_size + nodes->nonexec_size + edges->exec_size + edges->nonexec_size;
#ifdef JACOBI_OP2_MPI
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &halo, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
#endif
  if ((ranks == 1) != (halo == 0)) op_printf("jacobi_op2: %lld halo elements on %d ranks\n", halo, ranks);
  op_timing_output();
  // Increments through a map may be added in another order on a device: 1e-12 of values near 1.
  const int ok = worst <= 1e-12 && (ranks == 1) == (halo == 0);
  op_printf("jacobi_op2: %d x %d nodes, %d iterations on %d rank%s in %.3f s; max |u - plain loops| = %.3g -> %s\n", n,
            n, iterations, ranks, ranks == 1 ? "" : "s", end_wall - start_wall, worst, ok ? "ok" : "WRONG");
  op_free_dat_temp(p_du);
  op_exit();
  free(edge_nodes);
  free(weight);
#ifdef JACOBI_OP2_MPI
  free(my_weight);
#endif
  free(r);
  free(u);
  free(want);
  free(dwant);
  return ok ? 0 : 1;
}
