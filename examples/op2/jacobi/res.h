// SPDX-License-Identifier: MIT
// One edge of the Jacobi iteration: the node it leads to gathers beta * A * u from the node it
// comes from.
inline void res(const double* A, const double* u, double* du, const double* beta) { *du += (*beta) * (*A) * (*u); }
