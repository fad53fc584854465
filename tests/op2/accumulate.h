// SPDX-License-Identifier: MIT
// A direct OP_INC argument read after its increment, as OP2's jac1 does: OP2 hands the kernel
// the element's own value.
inline void accumulate(double* u, const double* d, double* squares) {
  *u += *d;
  *squares += (*u) * (*u);
}
