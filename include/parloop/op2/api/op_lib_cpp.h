// SPDX-License-Identifier: MIT
// OP2's C++ API with OP2's names: the templates over the data's type, which is checked against
// the type named by a string.
#pragma once

#include "op_lib_c.h"

template <class T>
op_dat op_decl_dat(op_set set, int dim, char const* type, T* data, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_dat(set, dim, type, data, name, false); });
}
template <class T>
op_dat op_decl_dat_temp(op_set set, int dim, char const* type, T* data, char const* name) {
  (void)data;
  return parloop::op2::guarded(
      [&] { return parloop::op2::decl_dat(set, dim, type, static_cast<const T*>(nullptr), name, true); });
}
inline int op_free_dat_temp(op_dat dat) { return op_free_dat_temp_char(dat); }

template <class T>
parloop::op2::typed_arg<T> op_arg_gbl(T* data, int dim, char const* type, op_access acc) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(1, data, dim, type, acc, OP_ARG_GBL); });
}
template <class T>
parloop::op2::typed_arg<T> op_opt_arg_gbl(int opt, T* data, int dim, char const* type, op_access acc) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(opt, data, dim, type, acc, OP_ARG_GBL); });
}
template <class T>
parloop::op2::typed_arg<T> op_arg_info(T* data, int dim, char const* type, int ref) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(1, data, dim, type, ref, OP_ARG_INFO); });
}

template <class T>
void op_fetch_data(op_dat dat, T* usr_ptr) {
  parloop::op2::guarded(
      [&] { parloop::op2::fetch_data(dat, usr_ptr, 0, dat != nullptr ? dat->set->size - 1 : 0, "op_fetch_data"); });
}
template <class T>
void op_fetch_data_idx(op_dat dat, T* usr_ptr, int low, int high) {
  parloop::op2::guarded([&] { parloop::op2::fetch_data(dat, usr_ptr, low, high, "op_fetch_data_idx", true); });
}

// op_decl_const names no variable, and device kernels need its name: the macro takes it from
// the argument's text (`&gam` is gam).
template <class T>
void op_decl_const2(char const* name, int dim, char const* type, T* data) {
  parloop::op2::guarded([&] { parloop::op2::decl_const(dim, type, data, name != nullptr ? name : ""); });
}
// The argument's text also says whether it is the variable itself (`&gam`, an array `qinf`), whose
// size is then checked against `dim`.
#define op_decl_const(dim, type, data) \
  parloop::op2::guarded([&] { parloop::op2::decl_const_spelled(#data, dim, type, data, sizeof(*(data))); })
