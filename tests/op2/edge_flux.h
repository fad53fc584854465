// SPDX-License-Identifier: MIT
// test_op2's edge kernel through two slots of maps: reads nodes and cells, increments cells.
inline void edge_flux(const double* x1, const double* x2, const double* q1, const double* q2, double* r1, double* r2) {
  const double f = weight * (q1[0] - q2[0]) + (x1[0] - x2[0]);
  r1[0] += f;
  r2[0] -= f;
  r1[1] += q1[1] * q2[1];
  r2[1] += q1[1] * q2[1];
}
