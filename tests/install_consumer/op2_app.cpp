// SPDX-License-Identifier: MIT
// An OP2 application built against the installed parloop as a user builds one:
// find_package(parloop COMPONENTS op2), parloop::op2, and its kernel header built into it by
// parloop_embed_sources -- run.cmake removes the header before the run on a device.
#include <stdio.h>

double factor;

#include "op_seq.h"

#include "double_it.h"

int main(int argc, char** argv) {
  op_init(argc, argv, 0);
  double in[4] = {1.0, 2.0, 3.0, 4.0}, out[4] = {0.0, 0.0, 0.0, 0.0};
  op_set s = op_decl_set(4, "s");
  op_dat a = op_decl_dat(s, 1, "double", in, "a");
  op_dat b = op_decl_dat(s, 1, "double", (double*)NULL, "b");
  factor = 2.5;
  op_decl_const(1, "double", &factor);
  op_par_loop(double_it, "double_it", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(b, out);
  const int ok = out[0] == 2.5 && out[1] == 5.0 && out[2] == 7.5 && out[3] == 10.0;
  printf("op2 consumer: %g %g %g %g -> %s\n", out[0], out[1], out[2], out[3], ok ? "ok" : "WRONG");
  op_exit();
  return ok ? 0 : 1;
}
