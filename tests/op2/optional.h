// SPDX-License-Identifier: MIT
// op_opt_arg_dat: `a` is read only where the loop passes it.
inline void optional(const int* use, const double* a, double* b) { *b = *use ? 2.0 * (*a) : -1.0; }
