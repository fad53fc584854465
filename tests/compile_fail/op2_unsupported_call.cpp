// expect: parloop's OP2 API has no op_decl_set_hdf5
// SPDX-License-Identifier: MIT
#include <parloop/op2/api/op_seq.h>
int main() {
  op_init(0, nullptr, 0);
  op_set cells = op_decl_set_hdf5("new_grid.h5", "cells");
  (void)cells;
}
