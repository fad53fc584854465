// SPDX-License-Identifier: MIT
// vector_flux with its pointers declared as arrays, as OP2's vector Airfoil declares them: C
// adjusts `const double *x[2]` to `const double **x`, and every device compiler must agree.
inline void vector_arrays(const double* x[2], const double* q[2], double* r[2]) {
  const double f = weight * (q[0][0] - q[1][0]) + (x[0][0] - x[1][0]);
  r[0][0] += f;
  r[1][0] -= f;
  r[0][1] += q[0][1] * q[1][1];
  r[1][1] += q[0][1] * q[1][1];
}
