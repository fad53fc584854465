// SPDX-License-Identifier: MIT
// edge_flux with OP2's vector arguments: a pointer per map entry.
inline void vector_flux(const double** x, const double** q, double** r) {
  const double f = weight * (q[0][0] - q[1][0]) + (x[0][0] - x[1][0]);
  r[0][0] += f;
  r[1][0] -= f;
  r[0][1] += q[0][1] * q[1][1];
  r[1][1] += q[0][1] * q[1][1];
}
