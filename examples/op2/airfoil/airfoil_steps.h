// SPDX-License-Identifier: MIT
// Airfoil's constants and iterations as OP2's Airfoil declares and runs them, for its forms here (airfoil.cpp reads the
// text mesh, airfoil_hdf5.cpp OP2's new_grid.h5): the rms printed every 100 iterations and after the last, then the
// final state read back in the declared numbering -- over MPI, the whole of it on every rank -- weighted by position,
// so that a value in the wrong place shows. Included after op_seq.h and the kernels' headers.
#pragma once

// The constants the kernels read declared, as OP2 applications declare them, then the mesh
// partitioned (over MPI ranks; in one process it stays as declared).
static void airfoil_constants_and_partition(op_set partitioned, op_map pecell, op_dat p_x) {
  op_decl_const(1, "double", &gam);
  op_decl_const(1, "double", &gm1);
  op_decl_const(1, "double", &cfl);
  op_decl_const(1, "double", &eps);
  op_decl_const(4, "double", qinf);
  op_diagnostic_output();
  op_partition("PTSCOTCH", "KWAY", partitioned, pecell, p_x);
}

static void airfoil_iterate(int iterations, int digits, op_set cells, op_set edges, op_set bedges, op_map pedge,
                            op_map pecell, op_map pbedge, op_map pbecell, op_map pcell, op_dat p_bound, op_dat p_x,
                            op_dat p_q, op_dat p_qold, op_dat p_adt, op_dat p_res) {
  double cpu_t1, wall_t1, cpu_t2, wall_t2;
  op_timers(&cpu_t1, &wall_t1);
  double rms = 0.0;
  for (int iter = 1; iter <= iterations; ++iter) {
    op_par_loop(save_soln, "save_soln", cells, op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_WRITE));
    for (int k = 0; k < 2; ++k) {
      op_par_loop(adt_calc, "adt_calc", cells, op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ), op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ), op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));
      op_par_loop(res_calc, "res_calc", edges, op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ), op_arg_dat(p_q, 0, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_q, 1, pecell, 4, "double", OP_READ), op_arg_dat(p_adt, 0, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_adt, 1, pecell, 1, "double", OP_READ), op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
                  op_arg_dat(p_res, 1, pecell, 4, "double", OP_INC));
      op_par_loop(bres_calc, "bres_calc", bedges, op_arg_dat(p_x, 0, pbedge, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pbedge, 2, "double", OP_READ), op_arg_dat(p_q, 0, pbecell, 4, "double", OP_READ),
                  op_arg_dat(p_adt, 0, pbecell, 1, "double", OP_READ),
                  op_arg_dat(p_res, 0, pbecell, 4, "double", OP_INC),
                  op_arg_dat(p_bound, -1, OP_ID, 1, "int", OP_READ));
      rms = 0.0;
      op_par_loop(update, "update", cells, op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_WRITE), op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_RW),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&rms, 1, "double", OP_INC));
    }
    rms = sqrt(rms / (double)op_get_size(cells));
    if (iter % 100 == 0 || iter == iterations) op_printf(" %d  %*.*e\n", iter, digits + 5, digits, rms);
  }
  op_timers(&cpu_t2, &wall_t2);
  const int all_cells = op_get_size(cells);
  double* q_all = (double*)malloc(4 * sizeof(double) * all_cells);
  op_fetch_data_idx(p_q, q_all, 0, all_cells - 1);
  double q_sum = 0.0;
  for (int n = 0; n < 4 * all_cells; ++n) q_sum += q_all[n] * (n % 7 + 1);
  free(q_all);
  op_printf(" q checksum %.*e\n", digits, q_sum);
  op_timing_output();
  fprintf(stderr, "airfoil_op2: %d iterations in %.3f s (%.3f ms each)\n", iterations, wall_t2 - wall_t1,
          1e3 * (wall_t2 - wall_t1) / iterations);
}
