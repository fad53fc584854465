// SPDX-License-Identifier: MIT
// Airfoil's adt_calc, as an OP2 application writes its kernels (one per header): a cell's area
// over its time step, from its four nodes and its state. gam, gm1 and cfl are op_decl_const's.
inline void adt_calc(const double* x1, const double* x2, const double* x3, const double* x4, const double* q,
                     double* adt) {
  double ri = 1.0f / q[0];
  double u = ri * q[1];
  double v = ri * q[2];
  double c = sqrt(gam * gm1 * (ri * q[3] - 0.5f * (u * u + v * v)));
  double dx = x2[0] - x1[0];
  double dy = x2[1] - x1[1];
  *adt = fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x3[0] - x2[0];
  dy = x3[1] - x2[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x4[0] - x3[0];
  dy = x4[1] - x3[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x1[0] - x4[0];
  dy = x1[1] - x4[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  *adt = (*adt) / cfl;
}
