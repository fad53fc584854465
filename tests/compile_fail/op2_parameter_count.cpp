// expect: op_par_loop passes another number of arguments than its kernel takes parameters
// SPDX-License-Identifier: MIT
#include <parloop/op2/api/op_seq.h>
inline void copy(const double* a, double* b) { *b = *a; }
int main() {
  op_init(0, nullptr, 0);
  op_set s = op_decl_set(4, "s");
  op_dat a = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "a");
  op_par_loop(copy, "copy", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ));
}
