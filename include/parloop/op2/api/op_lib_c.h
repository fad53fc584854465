// SPDX-License-Identifier: MIT
// OP2's C API with OP2's names: the `_char` forms, whose data are bytes of a type named by a
// string.
#pragma once

#include "op_lib_core.h"

inline op_dat op_decl_dat_char(op_set set, int dim, char const* type, int size, char* data, char const* name) {
  (void)size;
  return parloop::op2::guarded([&] { return parloop::op2::decl_dat(set, dim, type, data, name, false); });
}
inline op_dat op_decl_dat_temp_char(op_set set, int dim, char const* type, int size, char const* name) {
  (void)size;
  return parloop::op2::guarded(
      [&] { return parloop::op2::decl_dat(set, dim, type, static_cast<const char*>(nullptr), name, true); });
}
inline int op_free_dat_temp_char(op_dat dat) {
  return parloop::op2::guarded([&] { return parloop::op2::free_dat_temp(dat); });
}
inline op_arg op_arg_gbl_char(char* data, int dim, const char* type, int size, op_access acc) {
  (void)size;
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(1, data, dim, type, acc, OP_ARG_GBL); });
}
inline op_arg op_opt_arg_gbl_char(int opt, char* data, int dim, const char* type, int size, op_access acc) {
  (void)size;
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(opt, data, dim, type, acc, OP_ARG_GBL); });
}
inline op_arg op_arg_info_char(char* data, int dim, const char* type, int size, int ref) {
  (void)size;
  return parloop::op2::guarded([&] { return parloop::op2::arg_gbl(1, data, dim, type, ref, OP_ARG_INFO); });
}
inline void op_fetch_data_char(op_dat dat, char* usr_ptr) {
  parloop::op2::guarded(
      [&] { parloop::op2::fetch_data(dat, usr_ptr, 0, dat != nullptr ? dat->set->size - 1 : 0, "op_fetch_data"); });
}
inline void op_fetch_data_idx_char(op_dat dat, char* usr_ptr, int low, int high) {
  parloop::op2::guarded([&] { parloop::op2::fetch_data(dat, usr_ptr, low, high, "op_fetch_data_idx", true); });
}
inline void op_decl_const_char(int dim, char const* type, int size, char* data, char const* name) {
  (void)size;
  parloop::op2::guarded([&] { parloop::op2::decl_const(dim, type, data, name != nullptr ? name : ""); });
}
