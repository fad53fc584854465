// SPDX-License-Identifier: MIT
// op_arg_idx: the edge's own number and its second cell's.
inline void numbers(const int* own, const int* cell, int* out) {
  out[0] = *own;
  out[1] = *cell;
}
