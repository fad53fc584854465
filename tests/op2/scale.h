// SPDX-License-Identifier: MIT
// Constants of op_decl_const: a double, an array and an int.
inline void scale(const double* a, double* b) { *b = factor * (*a) + offset[1] + shift; }
