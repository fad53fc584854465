// SPDX-License-Identifier: MIT
// Airfoil's save_soln, as an OP2 application writes its kernels (one per header): keeps a
// cell's state before the predictor/corrector step.
inline void save_soln(const double* q, double* qold) {
  for (int n = 0; n < 4; n++) qold[n] = q[n];
}
