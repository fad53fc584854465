// SPDX-License-Identifier: MIT
// OP2's core API with OP2's names, in the global namespace, over parloop (include/parloop/op2/):
// the handles, access modes and null maps, op_init and op_exit, sets and maps, loop arguments
// of dats and indices, sizes, printing, timers and memory. An application includes op_seq.h.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sys/time.h>

#include "parloop/op2/args.hpp"
// Every backend the build has, as parloop.hpp brings them.
#include "parloop/parloop.hpp"
#include "parloop/op2/declare.hpp"
#include "parloop/op2/errors.hpp"
#include "parloop/op2/get_data.hpp"
#include "parloop/op2/handles.hpp"
#if PARLOOP_HAVE_HDF5
#include "parloop/op2/hdf5.hpp"
#endif
#include "parloop/op2/output.hpp"
#include "parloop/op2/partition.hpp"
#include "parloop/op2/program.hpp"

using op_set_core = parloop::op2::op_set_core;
using op_map_core = parloop::op2::op_map_core;
using op_dat_core = parloop::op2::op_dat_core;
using op_set = op_set_core*;
using op_map = op_map_core*;
using op_dat = op_dat_core*;
using op_arg = parloop::op2::op_arg;
using op_access = int;
using op_arg_type = int;
using uint = unsigned int;
using ll = long long;
using ull = unsigned long long;
// OP2's index types: an element's number on this rank, and in the whole mesh.
using idx_l_t = int;
using idx_g_t = long long;

#define OP_READ 0
#define OP_WRITE 1
#define OP_RW 2
#define OP_INC 3
#define OP_MIN 4
#define OP_MAX 5
#define OP_ARG_GBL 0
#define OP_ARG_DAT 1
#define OP_ARG_IDX 2
#define OP_ARG_INFO 3
#define OP_ID (op_map) nullptr
#define OP_GBL (op_map) nullptr
#ifndef MIN
#define MIN(a, b) ((a < b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a > b) ? (a) : (b))
#endif

// OP2's tuning knobs, which parloop's own choices replace: kept so that applications that set
// or print them compile.
inline int OP_diags = 0;
inline int OP_part_size = 0;
inline int OP_block_size = 64;
inline int OP_cache_line_size = 128;
inline int OP_auto_soa = 0;
inline int OP_maps_base_index = 0;

// Opens the runtime the application's loops run on: PARLOOP_BACKEND names it, else the best.
inline void op_init(int argc, char** argv, int diags) {
  (void)argc;
  (void)argv;
  parloop::op2::guarded([&] { parloop::op2::init(diags); });
  OP_diags = diags;
}
inline void op_init_soa(int argc, char** argv, int diags, int soa) {
  OP_auto_soa = soa;
  op_init(argc, argv, diags);
}
inline void op_exit() { parloop::op2::exit_program(); }

inline op_set op_decl_set(int size, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_set(size, name); });
}
inline op_map op_decl_map(op_set from, op_set to, int dim, int* imap, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_map(from, to, dim, imap, name); });
}
inline op_map op_decl_map_long(op_set from, op_set to, int dim, long long* imap, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_map(from, to, dim, imap, name); });
}

inline op_arg op_arg_dat(op_dat dat, int idx, op_map map, int dim, char const* type, op_access acc) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_dat(1, dat, idx, map, dim, type, acc); });
}
inline op_arg op_opt_arg_dat(int opt, op_dat dat, int idx, op_map map, int dim, char const* type, op_access acc) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_dat(opt, dat, idx, map, dim, type, acc); });
}
inline parloop::op2::typed_arg<int> op_arg_idx(int idx, op_map map) {
  return parloop::op2::guarded([&] { return parloop::op2::arg_idx(idx, map); });
}

// Elements of the set: on several ranks, of them all.
inline int op_get_size(op_set set) {
  return parloop::op2::guarded([&] { return parloop::op2::global_size(set); });
}
inline int op_is_root() { return parloop::op2::is_root() ? 1 : 0; }

inline void op_printf(const char* format, ...) {
  if (!parloop::op2::is_root()) return;
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
}
inline void op_print(const char* line) {
  if (parloop::op2::is_root()) std::printf("%s\n", line);
}

// Wall-clock seconds in *et; *cpu is left as it is (OP2 does the same).
inline void op_timers_core(double* cpu, double* et) {
  (void)cpu;
  timeval t;
  gettimeofday(&t, nullptr);
  *et = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}
inline void op_timers(double* cpu, double* et) {
  parloop::op2::barrier();
  op_timers_core(cpu, et);
}
inline void op_timing_output() {
  if (parloop::op2::is_root()) parloop::op2::guarded([] { parloop::op2::timing_output(); });
}
inline void op_diagnostic_output() {
  if (parloop::op2::is_root()) parloop::op2::guarded([] { parloop::op2::diagnostic_output(); });
}
inline void op_print_dat_to_txtfile(op_dat dat, const char* file_name) {
  parloop::op2::guarded([&] { parloop::op2::print_dat_to_txtfile(dat, file_name); });
}
inline void op_print_dat_to_binfile(op_dat dat, const char* file_name) {
  parloop::op2::guarded([&] { parloop::op2::print_dat_to_binfile(dat, file_name); });
}

inline void* op_malloc(std::size_t size) { return std::malloc(size); }
inline void* op_calloc(std::size_t num, std::size_t size) { return std::calloc(num, size); }
inline void* op_realloc(void* ptr, std::size_t size) { return std::realloc(ptr, size); }
inline void op_free(void* ptr) { std::free(ptr); }

// Partitions the sets over MPI ranks: see op2/partition.hpp.
inline void op_partition(const char* lib_name, const char* lib_routine, op_set prime_set, op_map prime_map,
                         op_dat coords) {
  parloop::op2::guarded([&] { parloop::op2::partition(lib_name, lib_routine, prime_set, prime_map, coords); });
}
// Over MPI, the mesh distributed as declared, with its halos, instead of by op_partition.
inline void op_halo_create() {
  parloop::op2::guarded([] { parloop::op2::halo_create(); });
}
// A copy of a dat's values (this rank's declared block, in declared order) that the caller
// releases with free(): temp->data, temp->set, then temp (op2/get_data.hpp).
inline op_dat op_mpi_get_data(op_dat dat) {
  return parloop::op2::guarded([&] { return parloop::op2::mpi_get_data(dat); });
}
// OP2's renumbering from a map: parloop renumbers the sets it links for locality.
inline void op_renumber(op_map base) {
  parloop::op2::guarded([&] { parloop::op2::renumber_from(base); });
}

// OP2's calls that parloop's OP2 API leaves out: a compile error naming the call.
#define PARLOOP_OP2_UNSUPPORTED(call, instead)                                                \
  template <class... A>                                                                       \
  parloop::op2::refused_result call(A&&...) {                                                 \
    static_assert(parloop::op2::never<A...>, "parloop's OP2 API has no " #call ": " instead); \
    return {};                                                                                \
  }
#if PARLOOP_HAVE_HDF5
// OP2's HDF5 calls (op_hdf5.h), files in OP2's layout (op2/hdf5.hpp).
inline op_set op_decl_set_hdf5(char const* file, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_set_hdf5(file, name); });
}
inline op_set op_decl_set_hdf5_infer_size(char const* file, char const* name, char const* set_dataset_name) {
  return parloop::op2::guarded([&] {
    if (set_dataset_name == nullptr) throw parloop::argument_error("op_decl_set_hdf5_infer_size: the dataset is null");
    return parloop::op2::decl_set_hdf5(file, name, set_dataset_name);
  });
}
inline op_map op_decl_map_hdf5(op_set from, op_set to, int dim, char const* file, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_map_hdf5(from, to, dim, file, name); });
}
inline op_dat op_decl_dat_hdf5(op_set set, int dim, char const* type, char const* file, char const* name) {
  return parloop::op2::guarded([&] { return parloop::op2::decl_dat_hdf5(set, dim, type, file, name); });
}
inline void op_get_const_hdf5(char const* name, int dim, char const* type, char* const_data, char const* file_name) {
  parloop::op2::guarded([&] { parloop::op2::get_const_hdf5(name, dim, type, const_data, file_name); });
}
inline void op_write_const_hdf5(char const* name, int dim, char const* type, char* const_data, char const* file_name) {
  parloop::op2::guarded([&] { parloop::op2::write_const_hdf5(name, dim, type, const_data, file_name); });
}
inline void op_dump_to_hdf5(char const* file_name) {
  parloop::op2::guarded([&] { parloop::op2::dump_to_hdf5(file_name); });
}
inline void op_fetch_data_hdf5_file(op_dat dat, char const* file_name) {
  parloop::op2::guarded([&] { parloop::op2::fetch_data_hdf5(dat, file_name, nullptr); });
}
inline void op_fetch_data_hdf5_file_path(op_dat dat, char const* file_name, char const* path_name) {
  parloop::op2::guarded([&] {
    if (path_name == nullptr) throw parloop::argument_error("op_fetch_data_hdf5_file_path: the path is null");
    parloop::op2::fetch_data_hdf5(dat, file_name, path_name);
  });
}
#else
#define PARLOOP_OP2_NO_HDF5 "this build of parloop has no HDF5: install libhdf5-dev and build it again"
PARLOOP_OP2_UNSUPPORTED(op_decl_set_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_decl_set_hdf5_infer_size, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_decl_map_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_decl_dat_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_get_const_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_dump_to_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_write_const_hdf5, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_fetch_data_hdf5_file, PARLOOP_OP2_NO_HDF5)
PARLOOP_OP2_UNSUPPORTED(op_fetch_data_hdf5_file_path, PARLOOP_OP2_NO_HDF5)
#endif
PARLOOP_OP2_UNSUPPORTED(op_decl_dat_overlay, "a dat's storage is parloop's own: declare another dat")
PARLOOP_OP2_UNSUPPORTED(op_decl_dat_overlay_ptr, "a dat's storage is parloop's own: declare another dat")
PARLOOP_OP2_UNSUPPORTED(op_upload_all, "parloop moves dats between host and device itself")
PARLOOP_OP2_UNSUPPORTED(op_upload_dat, "parloop moves dats between host and device itself")
PARLOOP_OP2_UNSUPPORTED(op_download_dat, "parloop moves dats between host and device itself: op_fetch_data reads one")
