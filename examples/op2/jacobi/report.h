// SPDX-License-Identifier: MIT
// Prints the value at the grid's centre: a kernel that calls printf, and takes its node's own
// number (op_arg_idx) to find it.
#include <stdio.h>

inline void report(const double* u, const int* node) {
  if (*node == centre) printf("  u at the centre (node %d) = %.6f\n", *node, *u);
}
