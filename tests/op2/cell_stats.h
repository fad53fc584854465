// SPDX-License-Identifier: MIT
// test_op2's reductions: a sum, a minimum, a maximum and a count, with a global read.
inline void cell_stats(const double* q, const int* scale, double* sum, double* lo, double* hi, int* count) {
  *sum += q[0] * (*scale);
  *lo = MIN(*lo, q[1]);
  *hi = MAX(*hi, q[0]);
  *count += 1;
}
