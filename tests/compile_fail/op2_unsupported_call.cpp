// expect: parloop's OP2 API has no op_decl_set_hdf5
// expect: parloop's OP2 API has no op_decl_map_hdf5
// expect-not: conversion
// SPDX-License-Identifier: MIT
// The call's own message is the only error, whatever the program does with what it returns.
#include <parloop/op2/api/op_seq.h>
int main() {
  op_init(0, nullptr, 0);
  op_set cells = op_decl_set_hdf5("new_grid.h5", "cells");
  op_map pcell = op_decl_map_hdf5(cells, cells, 4, "new_grid.h5", "pcell");
  (void)pcell;
}
