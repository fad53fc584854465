// SPDX-License-Identifier: MIT
// op_arg_info: where the largest value is, written as elements run in order.
inline void where_max(const double* v, const int* own, double* best, int* at) {
  if (*v > *best) {
    *best = *v;
    *at = *own;
  }
}
