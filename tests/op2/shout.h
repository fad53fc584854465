// SPDX-License-Identifier: MIT
// A kernel that prints, as OP2 kernels may: every backend has printf (a device's lines come out
// when the loop ends).
#include <stdio.h>

inline void shout(const int* own, const double* v) {
  if (*own == 0) printf("op2 test: element %d holds %.2f\n", *own, *v);
}
