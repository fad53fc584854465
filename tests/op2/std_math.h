// SPDX-License-Identifier: MIT
// C's math by its C++ names, as OP2's min application calls std::min on a parameter named min;
// the same words in a comment stay as written. Its arrays are declared as arrays, as OP2's vector
// Airfoil declares `double q[4]`; one component is read through OP2_STRIDE, as OP2's aero reads
// its matrices.
#define PICK(a, b) std::max(a, b)
inline void std_math(const double q[2], double r[2], int* min) {
  r[0] = std::sqrt(std::fabs(q[0])) + PICK(q[1], 0.25);  // std::pow(q[0], 2) is not called
  r[1] = std ::min(q[0], OP2_STRIDE(q, 1));
  *min = std::min(*min, (int)std::floor(4.0 * q[0]));
}
