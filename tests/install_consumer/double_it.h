// SPDX-License-Identifier: MIT
// The consumer OP2 application's kernel, in OP2's convention: kernel double_it in double_it.h.
inline void double_it(const double* a, double* b) { *b = factor * (*a); }
