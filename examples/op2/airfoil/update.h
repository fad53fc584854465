// SPDX-License-Identifier: MIT
// Airfoil's update, as an OP2 application writes its kernels (one per header): a cell's new
// state from its old state and residual, the residual cleared, and the sum of squares of the
// changes (for the rms).
inline void update(const double* qold, double* q, double* res, const double* adt, double* rms) {
  double adti = 1.0f / (*adt);
  for (int n = 0; n < 4; n++) {
    double del = adti * res[n];
    q[n] = qold[n] - del;
    res[n] = 0.0f;
    *rms += del * del;
  }
}
