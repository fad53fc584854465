// SPDX-License-Identifier: MIT
// Airfoil's bres_calc, as an OP2 application writes its kernels (one per header): the flux across
// a boundary edge, a wall (bound 1) or the far field (qinf).
inline void bres_calc(const double* x1, const double* x2, const double* q1, const double* adt1, double* res1,
                      const int* bound) {
  double dx = x1[0] - x2[0];
  double dy = x1[1] - x2[1];
  double ri = 1.0f / q1[0];
  double p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  if (*bound == 1) {
    res1[1] += +p1 * dy;
    res1[2] += -p1 * dx;
  } else {
    double vol1 = ri * (q1[1] * dy - q1[2] * dx);
    ri = 1.0f / qinf[0];
    double p2 = gm1 * (qinf[3] - 0.5f * ri * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
    double vol2 = ri * (qinf[1] * dy - qinf[2] * dx);
    double mu = (*adt1) * eps;
    double f = 0.5f * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
    res1[0] += f;
    f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
    res1[1] += f;
    f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
    res1[2] += f;
    f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
    res1[3] += f;
  }
}
