// SPDX-License-Identifier: MIT
// One node of the Jacobi iteration: the new value, the residual cleared, and the sum of squares
// and largest value over the nodes.
inline void update(const double* r, double* du, double* u, double* u_sum, double* u_max) {
  *u += *du + alpha * (*r);
  *du = 0.0;
  *u_sum += (*u) * (*u);
  *u_max = MAX(*u_max, *u);
}
