// expect: an op_arg_gbl's or op_arg_idx's variable is of another type than the kernel's parameter
// SPDX-License-Identifier: MIT
#include <parloop/op2/api/op_seq.h>
inline void total(const double* v, double* sum) { *sum += *v; }
int main() {
  op_init(0, nullptr, 0);
  op_set s = op_decl_set(4, "s");
  op_dat v = op_decl_dat(s, 1, "double", static_cast<double*>(nullptr), "v");
  int sum = 0;
  op_par_loop(total, "total", s, op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&sum, 1, "int", OP_INC));
}
