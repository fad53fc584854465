// SPDX-License-Identifier: MIT
// Code generation: the IR's equality and hash, what the emitters write for each access
// pattern (checked line by line, not as whole-file snapshots), kernels from C source, the
// source dump, and compile errors from the real compilers.
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <parloop/codegen/generate.hpp>
#include <parloop/exec/kernel/dump_source.hpp>
#include <parloop/ir/hash.hpp>
#include <parloop/parloop.hpp>
#if PARLOOP_TEST_OPENCL
#include <parloop/backend/opencl/compile.hpp>
#endif
#if PARLOOP_TEST_CUDA
#include <parloop/backend/cuda/compile.hpp>
#endif

#include "build_everywhere.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_codegen {

namespace pl = parloop;
namespace cg = parloop::codegen;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;

namespace {

// A kernel from source made directly, not through kernel_from_source, so that the test
// main does not collect it among the kernels that must compile.
template <std::size_t N>
pl::ir::kernel failing_source_kernel(const std::string& name, const std::string& source,
                                     const std::array<pl::ir::param, N>& params) {
  pl::ir::kernel k;
  k.name = name;
  k.params.assign(params.begin(), params.end());
  k.raw_source = source;
  return k;
}

constexpr cg::dialect_kind both[] = {cg::dialect_kind::opencl, cg::dialect_kind::cuda};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    out.push_back(first == std::string::npos ? std::string() : line.substr(first));
  }
  return out;
}

// Whether some line, without its indentation, is exactly `line`.
bool has_line(const std::string& text, const std::string& line) {
  for (const auto& l : lines_of(text)) {
    if (l == line) return true;
  }
  return false;
}

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

struct mesh {
  pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  pl::Set cells{rt, 6, "cells"};
  pl::Set edges{rt, 5, "edges"};
  pl::Map e2c{edges, cells, 2, parloop_test::random_map(5, 6, 2), "e2c"};
  pl::Map e2c_other{edges, cells, 2, parloop_test::random_map(5, 6, 2), "e2c_other"};
  pl::Dat<double, 4> q{cells, "q"};
  pl::Dat<double, 4> res{cells, "res"};
  pl::Dat<float, 2> w{edges, "w"};
  pl::Dat<std::int64_t> n{cells, "n"};
  pl::Global<double> total{rt, 0.0, "total"};
  pl::Global<float, 2> bounds{rt, {0.0f, 0.0f}, "bounds"};
};

const auto flux = parloop_test::flux_kernel();

std::shared_ptr<const pl::ir::kernel> flux_ir(mesh& m) {
  return flux.traced(m.q(pl::READ, m.e2c, 0), m.q(pl::READ, m.e2c, 1), m.res(pl::INC, m.e2c, 0),
                     m.res(pl::INC, m.e2c, 1));
}

}  // namespace

TEST_CASE("the IR has structural equality and a structural hash", "[codegen][ir]") {
  mesh m;
  const auto a = flux_ir(m);
  auto copy = parloop_test::flux_kernel();
  const auto b =
      copy.traced(m.q(pl::READ, m.e2c, 0), m.q(pl::READ, m.e2c, 1), m.res(pl::INC, m.e2c, 0), m.res(pl::INC, m.e2c, 1));
  CHECK(a != b);    // different objects ...
  CHECK(*a == *b);  // ... the same structure
  CHECK(pl::ir::hash(*a) == pl::ir::hash(*b));

  // Another map for one argument is another kernel: its map is a separate parameter.
  const auto c = copy.traced(m.q(pl::READ, m.e2c, 0), m.q(pl::READ, m.e2c_other, 1), m.res(pl::INC, m.e2c, 0),
                             m.res(pl::INC, m.e2c, 1));
  CHECK_FALSE(*a == *c);
  CHECK(pl::ir::hash(*a) != pl::ir::hash(*c));
  CHECK(copy.traces() == 2);

  pl::ir::kernel d = *a;
  d.exprs[0].fval = -d.exprs[0].fval;
  CHECK_FALSE(d == *a);
  CHECK(pl::ir::hash(d) != pl::ir::hash(*a));
}

TEST_CASE("the entry point and its parameters", "[codegen][names]") {
  mesh m;
  const auto ir = flux_ir(m);
  const auto buffers = pl::ir::buffers(*ir);
  // q and res once each (q read-only), e2c once.
  REQUIRE(buffers.size() == 3);
  CHECK((buffers[0].role == pl::ir::buffer_role::data && buffers[0].index == 0 && buffers[0].is_const));
  CHECK((buffers[1].role == pl::ir::buffer_role::data && buffers[1].index == 1 && !buffers[1].is_const));
  CHECK((buffers[2].role == pl::ir::buffer_role::map && buffers[2].index == 0));

  const std::string cl = cg::generate(*ir, cg::dialect_kind::opencl).text;
  CHECK(has_line(cl, "__kernel void pl_kernel_flux(const int pl_start, const int pl_end,"));
  CHECK(has_line(cl, "__global const double* restrict data0,"));
  CHECK(has_line(cl, "__global double* restrict data1,"));
  CHECK(has_line(cl, "__global const int* restrict map0) {"));
  CHECK(has_line(cl, "const long pl_item = (long)get_global_id(0);"));

  const std::string cu = cg::generate(*ir, cg::dialect_kind::cuda).text;
  CHECK(has_line(cu, "extern \"C\" __global__ void pl_kernel_flux(const int pl_start, const int pl_end,"));
  CHECK(has_line(cu, "const double* __restrict__ data0,"));
  CHECK(has_line(cu, "const long long pl_item = (long long)blockIdx.x * blockDim.x + threadIdx.x;"));

  for (const auto d : both) {
    const std::string s = cg::generate(*ir, d).text;
    // The user's let names, made unique and prefixed l_, one statement per line.
    CHECK(has_line(s, "double l_f = 0.5 * (arg0[0] + arg1[0]);"));
    CHECK(has_line(s, "double l_f_3 = 0.5 * (arg0[3] + arg1[3]);"));
    CHECK(has_line(s, "arg2[3] += l_f_3;"));
    CHECK(has_line(s, "arg3[3] -= l_f_3;"));
  }
}

TEST_CASE("indirect arguments are gathered and scattered by access mode", "[codegen][access]") {
  mesh m;
  auto k = pl::kernel("modes", [](auto r, auto rw, auto wr, auto inc, auto mn, auto all) {
    inc[0] += r[1];
    rw[2] = rw[2] * 2.0;
    wr[3] = 1.0;
    mn[0] = pl::min(mn[0], r[0]);
    all[1][2] += r[2];
  });
  pl::Dat<double, 4> a(m.cells), b(m.cells), c(m.cells), d(m.cells), e(m.cells);
  const auto ir = k.traced(m.q(pl::READ, m.e2c, 0), a(pl::RW, m.e2c, 1), b(pl::WRITE, m.e2c, 0), c(pl::INC, m.e2c, 1),
                           d(pl::MIN, m.e2c, 0), e(pl::INC, m.e2c));
  for (const auto d : both) {
    const std::string s = cg::generate(*ir, d).text;
    const std::string at = d == cg::dialect_kind::opencl ? "long" : "long long";
    // Every indirect argument: its position in the dat, then a private copy.
    CHECK(has_line(s, "const " + at + " arg0_at = (" + at + ")map0[(" + at + ")pl_e * 2 + 0] * 4;"));
    CHECK(has_line(s, "const " + at + " arg1_at = (" + at + ")map0[(" + at + ")pl_e * 2 + 1] * 4;"));
    CHECK(has_line(s, "double arg0[4];"));
    // READ, RW and WRITE start from the old values (WRITE too: components the body leaves
    // alone keep their values); INC starts from 0 and MIN from +infinity.
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) arg0[pl_k] = data0[arg0_at + pl_k];"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) arg1[pl_k] = data1[arg1_at + pl_k];"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) arg2[pl_k] = data2[arg2_at + pl_k];"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) arg3[pl_k] = 0.0;"));
    // READ is not written back; RW and WRITE are; INC and MIN combine atomically.
    CHECK(count_of(s, "data0[arg0_at + pl_k] =") == 0);
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) data1[arg1_at + pl_k] = arg1[pl_k];"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) data2[arg2_at + pl_k] = arg2[pl_k];"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) pl_atomic_add_f64(&data3[arg3_at + pl_k], arg3[pl_k]);"));
    CHECK(has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) pl_atomic_min_f64(&data4[arg4_at + pl_k], arg4[pl_k]);"));
    CHECK(has_line(s, "arg4[0] = pl_min_f64(arg4[0], arg0[0]);"));
    // A whole-map argument: a private [arity][dim] array, a loop over the map's slots.
    CHECK(has_line(s, "double arg5[2][4];"));
    CHECK(has_line(s, "arg5[1][2] += arg0[2];"));
    CHECK(count_of(s, "for (int pl_j = 0; pl_j < 2; ++pl_j) {") == 2);
    CHECK(has_line(s, "const " + at + " pl_at = (" + at + ")map0[(" + at + ")pl_e * 2 + pl_j] * 4;"));
    CHECK(
        has_line(s, "for (int pl_k = 0; pl_k < 4; ++pl_k) pl_atomic_add_f64(&data5[pl_at + pl_k], arg5[pl_j][pl_k]);"));
  }
  const std::string cu = cg::generate(*ir, cg::dialect_kind::cuda).text;
  CHECK(has_line(cu, "atomicAdd(p, v);"));
  CHECK_THAT(cu, Contains("atomicCAS((unsigned long long*)p"));
  const std::string cl = cg::generate(*ir, cg::dialect_kind::opencl).text;
  CHECK_THAT(cl, Contains("atom_cmpxchg((volatile __global ulong*)p"));
  CHECK(has_line(cl, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable"));
}

TEST_CASE("direct arguments are private copies; global reductions reduce per work-group", "[codegen][access]") {
  mesh m;
  auto k = pl::kernel("reduce", [](auto w, auto total, auto bounds, auto scale) {
    total += w[0] * scale;
    bounds[0] = pl::min(bounds[0], w[1]);
    bounds[1] = pl::min(bounds[1], w[0]);
    w[1] = w[0] * scale;
  });
  pl::Global<double> scale(m.rt, 2.0);
  const auto ir = k.traced(m.w(pl::RW), m.total(pl::INC), m.bounds(pl::MIN), scale(pl::READ));
  const cg::generated_source cl_source = cg::generate(*ir, cg::dialect_kind::opencl);
  const std::string& cl = cl_source.text;
  // The direct argument is loaded into registers, updated there and stored once.
  CHECK(has_line(cl, "const long arg0_at = (long)pl_e * 2;"));
  CHECK(has_line(cl, "float arg0[2];"));
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) arg0[pl_k] = data0[arg0_at + pl_k];"));
  CHECK(has_line(cl, "arg0[1] = arg0[0] * arg3[0];"));
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) data0[arg0_at + pl_k] = arg0[pl_k];"));
  // A global constant is read once per work-item, before its elements.
  CHECK(has_line(cl, "double arg3[1];"));
  CHECK(has_line(cl, "arg3[0] = data3[0];"));
  CHECK(cl.find("arg3[0] = data3[0];") < cl.find("if (pl_e < pl_end)"));
  // The reduced globals are passed (the last group combines with their values), and so are
  // their partials and the counter of groups done.
  CHECK(has_line(cl, "__global double* restrict data1,"));
  CHECK(has_line(cl, "__global double* restrict arg1_partials,"));
  CHECK(has_line(cl, "__global float* restrict arg2_partials,"));
  CHECK(has_line(cl, "__global int* restrict pl_groups_done) {"));
  CHECK(has_line(cl, "arg1[0] = 0.0;"));
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) arg2[pl_k] = INFINITY;"));
  // Each work-group combines its work-items' partials in local memory; its first stores them.
  CHECK(has_line(cl, "__local double pl_group1[256];"));
  CHECK(has_line(cl, "pl_group1[pl_local] = arg1[0];"));
  CHECK(has_line(cl, "for (int pl_half = 128; pl_half > 0; pl_half /= 2) {"));
  CHECK(has_line(cl, "pl_group1[pl_local] += pl_group1[(pl_local + pl_half)];"));
  // Two trees per reduction, two barriers each: one over the work-items, one over the groups.
  CHECK(count_of(cl, "barrier(CLK_LOCAL_MEM_FENCE);") == 8);
  CHECK(has_line(cl, "arg1_partials[get_group_id(0)] = pl_group1[0];"));
  CHECK(has_line(cl,
                 "for (int pl_k = 0; pl_k < 2; ++pl_k) pl_group2[pl_local * 2 + pl_k] = pl_min_f32(pl_group2[pl_local "
                 "* 2 + pl_k], pl_group2[(pl_local + pl_half) * 2 + pl_k]);"));
  CHECK(has_line(
      cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) arg2_partials[(long)get_group_id(0) * 2 + pl_k] = pl_group2[pl_k];"));
  CHECK(has_line(cl, "arg1[0] += arg0[0] * arg3[0];"));
  // The last group takes a ticket after its partials are visible, sums every group's partials
  // in group order, combines them with the global's value and resets the counter.
  CHECK(has_line(cl, "mem_fence(CLK_GLOBAL_MEM_FENCE);"));
  CHECK(has_line(cl, "pl_last_group[0] = atomic_inc(pl_groups_done) == (int)((long)get_num_groups(0) - 1);"));
  CHECK(has_line(cl, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"));
  CHECK(has_line(cl, "if (pl_last_group[0]) {"));
  CHECK(has_line(cl, "for (long pl_g = pl_local; pl_g < pl_groups; pl_g += 256) {"));
  CHECK(has_line(cl, "arg1[0] += ((volatile __global const double*)arg1_partials)[pl_g];"));
  CHECK(has_line(cl,
                 "for (int pl_k = 0; pl_k < 2; ++pl_k) arg2[pl_k] = pl_min_f32(arg2[pl_k], ((volatile __global const "
                 "float*)arg2_partials)[pl_g * 2 + pl_k]);"));
  CHECK(has_line(cl, "data1[0] += pl_group1[0];"));
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) data2[pl_k] = pl_min_f32(data2[pl_k], pl_group2[pl_k]);"));
  CHECK(has_line(cl, "if (pl_local == 0) *pl_groups_done = 0;"));
  // The local memory a group declares: a value per work-item of each reduction, and the flag.
  CHECK(cl_source.needs.group_memory == 256 * 8 + 256 * 2 * 4 + 4);
  const cg::generated_source cu_source = cg::generate(*ir, cg::dialect_kind::cuda);
  const std::string& cu = cu_source.text;
  CHECK(has_line(cu, "for (int pl_k = 0; pl_k < 2; ++pl_k) arg2[pl_k] = __int_as_float(0x7f800000);"));
  // CUDA combines a warp's values by shuffles, then the block's eight warps' in shared memory:
  // one barrier per combine, and a value per warp.
  CHECK(has_line(cu, "for (int pl_delta = 16; pl_delta > 0; pl_delta /= 2) {"));
  CHECK(has_line(cu, "arg1[0] += __shfl_down_sync(0xffffffffu, arg1[0], pl_delta);"));
  CHECK(has_line(cu,
                 "for (int pl_k = 0; pl_k < 2; ++pl_k) arg2[pl_k] = pl_min_f32(arg2[pl_k], "
                 "__shfl_down_sync(0xffffffffu, arg2[pl_k], pl_delta));"));
  CHECK(has_line(cu, "if (pl_local % 32 == 0) {"));
  CHECK(has_line(cu, "pl_group1[(pl_local / 32)] = arg1[0];"));
  CHECK(has_line(cu, "arg1[0] = pl_local < 8 ? pl_group1[pl_local] : 0.0;"));
  CHECK(has_line(cu, "__shared__ double pl_group1[8];"));
  CHECK(has_line(cu, "__shared__ float pl_group2[16];"));
  CHECK(cu_source.needs.group_memory == 8 * 8 + 8 * 2 * 4 + 4);
  CHECK(count_of(cu, "__syncthreads();") == 5);
  CHECK(has_line(cu, "arg1_partials[blockIdx.x] = pl_group1[0];"));
  CHECK(has_line(cu, "__threadfence();"));
  CHECK(has_line(cu, "pl_last_group[0] = atomicAdd(pl_groups_done, 1) == (int)(((long long)gridDim.x) - 1);"));
  CHECK(has_line(cu, "arg1[0] += ((volatile const double*)arg1_partials)[pl_g];"));
}

TEST_CASE("a direct INC of a traced kernel starts from its value, as the host's in place does", "[codegen][access]") {
  mesh m;
  auto k = pl::kernel("direct_inc", [](auto w) {
    w[0] += 0.25f;
    w[0] += 0.5f;
  });
  const std::string cl = cg::generate(*k.traced(m.w(pl::INC)), cg::dialect_kind::opencl).text;
  // (w + 0.25) + 0.5, not w + (0 + 0.25 + 0.5): the host's rounding.
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) arg0[pl_k] = data0[arg0_at + pl_k];"));
  CHECK(has_line(cl, "for (int pl_k = 0; pl_k < 2; ++pl_k) data0[arg0_at + pl_k] = arg0[pl_k];"));
  CHECK_THAT(cl, !Contains("= 0.0f"));
}

TEST_CASE("vectors_across_workgroups moves direct arguments as vectors", "[codegen][vectors]") {
  mesh m;
  pl::Dat<double, 4> r4(m.edges, "r4");
  pl::Dat<double> b(m.edges, "b");
  pl::Dat<std::int64_t> count(m.edges, "count");
  pl::Global<double> scale(m.rt, 2.0);
  // w: WRITE, both components assigned first: never loaded. r4: WRITE, components left alone:
  // loaded, so that they keep their values. b: READ: never stored. count: RW: loaded and stored.
  auto k = pl::kernel("vectored", [](auto w, auto res, auto bv, auto n, auto q, auto s) {
    w[0] = pl::cast<float>(bv[0] * s);
    w[1] = w[0] + 1.0f;
    res[2] = q[1];
    n += 1;
  });
  const auto ir =
      k.traced(m.w(pl::WRITE), r4(pl::WRITE), b(pl::READ), count(pl::RW), m.q(pl::READ, m.e2c, 0), scale(pl::READ));
  CHECK(pl::ir::written_before_read(*ir, 0));
  CHECK_FALSE(pl::ir::written_before_read(*ir, 1));
  const std::string cu = cg::generate(*ir, cg::dialect_kind::cuda, pl::vectors_across_workgroups{128, 2}).text;
  CHECK(has_line(cu, "const long long pl_slice = (long long)pl_start / 2 + pl_item;"));
  CHECK(has_line(cu, "const long long pl_base = pl_slice * 2;"));
  CHECK(has_line(cu, "if (pl_base >= pl_start && pl_base + 2 <= pl_end) {"));
  CHECK(has_line(cu, "float pl_vec0[4];"));
  CHECK(has_line(cu, "double pl_vec1[8];"));
  // Vectors of `width` lanes (at most 16 bytes): two elements of w are four floats, two float2.
  CHECK(count_of(cu, "((const float2*)data0)") == 0);
  CHECK(has_line(cu,
                 "{ float2 pl_v; pl_v.x = pl_vec0[0]; pl_v.y = pl_vec0[1]; ((float2*)data0)[pl_slice * 2] = pl_v; }"));
  CHECK(has_line(
      cu, "{ float2 pl_v; pl_v.x = pl_vec0[2]; pl_v.y = pl_vec0[3]; ((float2*)data0)[pl_slice * 2 + 1] = pl_v; }"));
  CHECK(has_line(
      cu,
      "{ const double2 pl_v = ((const double2*)data1)[pl_slice * 4 + 3]; pl_vec1[6] = pl_v.x; pl_vec1[7] = pl_v.y; }"));
  CHECK(has_line(
      cu, "{ double2 pl_v; pl_v.x = pl_vec1[6]; pl_v.y = pl_vec1[7]; ((double2*)data1)[pl_slice * 4 + 3] = pl_v; }"));
  CHECK(has_line(
      cu, "{ const double2 pl_v = ((const double2*)data2)[pl_slice]; pl_vec2[0] = pl_v.x; pl_vec2[1] = pl_v.y; }"));
  CHECK(count_of(cu, "((double2*)data2)") == 0);
  CHECK(has_line(
      cu, "{ const longlong2 pl_v = ((const longlong2*)data3)[pl_slice]; pl_vec3[0] = pl_v.x; pl_vec3[1] = pl_v.y; }"));
  CHECK(has_line(
      cu, "{ longlong2 pl_v; pl_v.x = pl_vec3[0]; pl_v.y = pl_vec3[1]; ((longlong2*)data3)[pl_slice] = pl_v; }"));
  // Each element runs on its part of the vectors; the indirect argument is gathered as ever, in
  // each of the four copies of the body (two on vectors, two one element at a time).
  CHECK(has_line(cu, "const long long pl_e = pl_base + 1;"));
  CHECK(has_line(cu, "float* const arg0 = pl_vec0 + 2;"));
  CHECK(has_line(cu, "const double* const arg2 = pl_vec2 + 1;"));
  CHECK(has_line(cu, "double* const arg1 = pl_vec1 + 4;"));
  CHECK(count_of(cu, "const long long arg4_at = (long long)map0[(long long)pl_e * 2 + 0] * 4;") == 4);
  // Where the range cuts the work-item's elements, those in it run one at a time.
  CHECK(has_line(cu, "} else {"));
  CHECK(has_line(cu, "if (pl_base >= pl_start && pl_base < pl_end) {"));
  CHECK(has_line(cu, "if (pl_base + 1 >= pl_start && pl_base + 1 < pl_end) {"));
  CHECK(count_of(cu, "const long long arg0_at = (long long)pl_e * 2;") == 2);
  // There w is never loaded, r4 is loaded and stored whole, b is only loaded.
  CHECK(count_of(cu, "= data0[") == 0);
  CHECK(count_of(cu, "for (int pl_k = 0; pl_k < 2; ++pl_k) data0[arg0_at + pl_k] = arg0[pl_k];") == 2);
  CHECK(count_of(cu, "for (int pl_k = 0; pl_k < 4; ++pl_k) arg1[pl_k] = data1[arg1_at + pl_k];") == 2);
  CHECK(count_of(cu, "for (int pl_k = 0; pl_k < 4; ++pl_k) data1[arg1_at + pl_k] = arg1[pl_k];") == 2);
  CHECK(count_of(cu, "arg2[0] = data2[arg2_at + 0];") == 2);
  CHECK(count_of(cu, "data2[arg2_at + 0] =") == 0);

  const std::string cl = cg::generate(*ir, cg::dialect_kind::opencl, pl::vectors_across_workgroups{64, 4}).text;
  CHECK(has_line(cl, "const long pl_slice = (long)pl_start / 4 + pl_item;"));
  CHECK(has_line(cl,
                 "{ float4 pl_v; pl_v.x = pl_vec0[4]; pl_v.y = pl_vec0[5]; pl_v.z = pl_vec0[6]; pl_v.w = pl_vec0[7]; "
                 "vstore4(pl_v, pl_slice * 2 + 1, data0); }"));
  CHECK(has_line(
      cl, "{ const double2 pl_v = vload2(pl_slice * 8 + 7, data1); pl_vec1[14] = pl_v.x; pl_vec1[15] = pl_v.y; }"));
  CHECK(has_line(cl,
                 "{ const long2 pl_v = vload2(pl_slice * 2 + 1, data3); pl_vec3[2] = pl_v.x; pl_vec3[3] = pl_v.y; }"));
  CHECK(has_line(cl, "const long pl_e = pl_base + 3;"));
  CHECK(count_of(cl, "pl_vec0[") == 1 + 8);  // declared, and stored as two float4: never loaded

  // A loop with nothing to move as vectors runs one element per work-item.
  const auto indirect = flux_ir(m);
  CHECK(pl::codegen::for_kernel(*indirect, pl::vectors_across_workgroups{96, 4}) ==
        pl::strategy{pl::split_n_across_workgroups{96}});
  CHECK(pl::codegen::for_kernel(*ir, pl::vectors_across_workgroups{96, 4}) ==
        pl::strategy{pl::vectors_across_workgroups{96, 4}});
  CHECK(pl::codegen::make_source(*indirect, cg::dialect_kind::cuda, pl::vectors_across_workgroups{96, 4})
            .grid.to_string() == "ceil_div(end - start, 96)");

  for (const int width : {2, 4}) parloop_test::check_builds_everywhere(*ir, pl::vectors_across_workgroups{64, width});
}

TEST_CASE("a kernel from source moves its direct arguments as vectors, but not those it combines into",
          "[codegen][vectors][source]") {
  using pl::scalar_type;
  // Its C function gets an INC argument's private copy at 0, added to the data after: the one-
  // element path does so, and the vector path must give the same rounding.
  const std::array<pl::ir::param, 3> params{
      pl::ir::param{scalar_type::float64, 1, pl::access::inc, pl::arg_kind::direct, 0, 1, 0, -1},
      pl::ir::param{scalar_type::float64, 2, pl::access::read, pl::arg_kind::direct, 0, 1, 1, -1},
      pl::ir::param{scalar_type::float32, 1, pl::access::rw, pl::arg_kind::direct, 0, 1, 2, -1}};
  const pl::ir::kernel k = failing_source_kernel(
      "acc", "void acc(double* a, const double* x, float* f) { *a += x[0]; *a += x[1]; *f *= 2.0f; }", params);
  CHECK_FALSE(cg::moves_as_vectors(k, k.params[0]));
  CHECK(cg::moves_as_vectors(k, k.params[1]));
  const std::string cu = cg::generate(k, cg::dialect_kind::cuda, pl::vectors_across_workgroups{128, 2}).text;
  CHECK(count_of(cu, "pl_vec0") == 0);
  CHECK(has_line(cu, "double pl_vec1[4];"));
  CHECK(has_line(cu, "float pl_vec2[2];"));
  CHECK(has_line(cu, "arg0[0] = 0.0;"));
  CHECK(has_line(cu, "const long long pl_e = pl_base + 1;"));
  CHECK_FALSE(has_line(cu, "double* const arg1 = pl_vec1 + 2;"));
  CHECK(has_line(cu, "const double* const arg1 = pl_vec1 + 2;"));
  CHECK(has_line(cu, "pl_fn_acc(arg0, arg1, arg2);"));
  for (const int width : {2, 4}) parloop_test::check_builds_everywhere(k, pl::vectors_across_workgroups{32, width});

  // With only combined arguments, nothing moves as vectors: one element per work-item.
  const std::array<pl::ir::param, 1> inc_only{params[0]};
  const pl::ir::kernel only = failing_source_kernel("only", "void only(double* a) { *a += 1.0; }", inc_only);
  CHECK(pl::codegen::for_kernel(only, pl::vectors_across_workgroups{32, 2}) ==
        pl::strategy{pl::split_n_across_workgroups{32}});
}

TEST_CASE("a body writes an argument before reading it only by assignments that always run", "[codegen][vectors]") {
  mesh m;
  const auto written = [&](auto body) {
    const auto ir = pl::kernel("written", body).traced(m.q(pl::WRITE), m.res(pl::RW));
    return pl::ir::written_before_read(*ir, 0);
  };
  CHECK(written([](auto q, auto) {
    for (int k = 3; k >= 0; --k) q[k] = 1.0;
  }));
  CHECK(written([](auto q, auto r) {
    q[0] = r[0];
    q[1] = q[0] * 2.0;
    q[2] = 0.0;
    q[3] = 0.0;
  }));
  // Component 3 is never written.
  CHECK_FALSE(written([](auto q, auto) {
    q[0] = 1.0;
    q[1] = 1.0;
    q[2] = 1.0;
  }));
  // Written only where a condition holds, or in a loop that may not run.
  CHECK_FALSE(written([](auto q, auto r) {
    q[0] = 1.0;
    q[1] = 1.0;
    q[2] = 1.0;
    pl::if_(r[0] > 0.0, [&] { q[3] = 1.0; });
  }));
  CHECK_FALSE(written([](auto q, auto r) {
    q[0] = 1.0;
    q[1] = 1.0;
    q[2] = 1.0;
    pl::for_(0, pl::cast<int>(r[0]), [&](auto) { q[3] = 1.0; });
  }));
  // By a computed component.
  CHECK_FALSE(written([](auto q, auto r) {
    q[0] = 1.0;
    q[1] = 1.0;
    q[2] = 1.0;
    q[pl::cast<int>(r[0])] = 1.0;
  }));
}

TEST_CASE("types, literals and math names per dialect", "[codegen][types]") {
  mesh m;
  auto k = pl::kernel("typed", [](auto w, auto n, auto total) {
    auto a = pl::let("a", w[0] * 0.5f);
    auto b = pl::let("b", pl::sqrt(w[1]) + pl::pow(a, 2.0f));
    auto c = pl::let("c", n + 3000000000LL);
    auto d = pl::let("d", pl::select(w[0] > 0.0f, a, b) + pl::floor(pl::cast<float>(c)));
    w[1] = d;
    total += pl::sqrt(n);
  });
  const auto ir = k.traced(m.w(pl::RW), m.n(pl::READ, m.e2c, 0), m.total(pl::INC));
  const std::string cl = cg::generate(*ir, cg::dialect_kind::opencl).text;
  const std::string cu = cg::generate(*ir, cg::dialect_kind::cuda).text;
  CHECK(has_line(cl, "float l_a = arg0[0] * 0.5f;"));
  CHECK(has_line(cl, "float l_b = sqrt(arg0[1]) + pow(l_a, 2.0f);"));
  CHECK(has_line(cu, "float l_b = sqrtf(arg0[1]) + powf(l_a, 2.0f);"));
  CHECK(has_line(cl, "long l_c = arg1[0] + 3000000000L;"));
  CHECK(has_line(cu, "long long l_c = arg1[0] + 3000000000LL;"));
  CHECK(has_line(cl, "float l_d = ((arg0[0] > 0.0f) ? l_a : l_b) + floor(((float)l_c));"));
  CHECK(has_line(cu, "float l_d = ((arg0[0] > 0.0f) ? l_a : l_b) + floorf(((float)l_c));"));
  // sqrt of an integer is sqrt of a double, as in C++; so is pow of a float and an int.
  CHECK(has_line(cl, "arg2[0] += sqrt((double)arg1[0]);"));
  auto promoted = pl::kernel("promoted", [](auto w, auto total) { total += pl::pow(w[0], 2); });
  CHECK(has_line(cg::generate(*promoted.traced(m.w(pl::READ), m.total(pl::INC)), cg::dialect_kind::cuda).text,
                 "arg1[0] += pow((double)arg0[0], (double)2);"));
  CHECK(has_line(cl, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));

  // A float-only kernel needs no fp64.
  auto f32 = pl::kernel("single", [](auto w) { w[0] = w[1] * 2.0f; });
  const std::string single = cg::generate(*f32.traced(m.w(pl::RW)), cg::dialect_kind::opencl).text;
  CHECK(count_of(single, "cl_khr_fp64") == 0);
  CHECK(count_of(single, "double") == 0);
}

TEST_CASE("control flow is written as C", "[codegen][control]") {
  mesh m;
  auto k = pl::kernel("control", [](auto w, auto n) {
    auto s = pl::let("s", 0.0f);
    pl::for_(0, n, [&](auto i) { pl::if_(i % 2 == 0, [&] { s += w[0]; }).else_([&] { s -= w[1]; }); });
    w[0] = s;
  });
  pl::Dat<std::int32_t> count(m.edges);
  const auto ir = k.traced(m.w(pl::RW), count(pl::READ));
  for (const auto d : both) {
    const std::string s = cg::generate(*ir, d).text;
    CHECK(has_line(s, "float l_s = 0.0f;"));
    CHECK(has_line(s, "for (int l_i = 0, pl_bound1 = arg1[0]; l_i < pl_bound1; ++l_i) {"));
    CHECK(has_line(s, "if ((l_i % 2) == 0) {"));
    CHECK(has_line(s, "l_s += arg0[0];"));
    CHECK(has_line(s, "} else {"));
    CHECK(has_line(s, "l_s -= arg0[1];"));
  }
}

TEST_CASE("kernels from C source get the same wrapper", "[codegen][source]") {
  mesh m;
  const auto k = parloop_test::smooth_source_kernel();
  const auto ir = k.ir(m.q(pl::READ, m.e2c, 0), m.q(pl::READ, m.e2c, 1), m.res(pl::INC, m.e2c, 0), m.total(pl::INC));
  for (const auto d : both) {
    const auto g = cg::generate(*ir, d);
    CHECK(g.entry == "pl_kernel_smooth");
    CHECK_THAT(g.text, Contains("void smooth(const double* a"));
    CHECK(has_line(g.text, "pl_fn_smooth(arg0, arg1, arg2, arg3);"));
    CHECK(has_line(g.text,
                   "for (int pl_k = 0; pl_k < 4; ++pl_k) pl_atomic_add_f64(&data1[arg2_at + pl_k], arg2[pl_k]);"));
    CHECK_THAT(g.text, Contains("arg3_partials["));
  }

  // Direct arguments are private copies too (OpenCL C's plain pointers are private).
  const auto direct = pl::kernel_from_source("twice", "void twice(float* w) { w[0] *= 2.0f; w[1] *= 2.0f; }");
  const std::string s = cg::generate(*direct.ir(m.w(pl::RW)), cg::dialect_kind::opencl).text;
  CHECK(has_line(s, "const long arg0_at = (long)pl_e * 2;"));
  CHECK(has_line(s, "for (int pl_k = 0; pl_k < 2; ++pl_k) data0[arg0_at + pl_k] = arg0[pl_k];"));

  // The host backend runs lambdas only.
  CHECK_THROWS_AS(pl::par_loop(direct, m.edges, m.w(pl::RW)), pl::backend_unavailable);
  CHECK_THROWS_WITH(pl::par_loop(direct, m.edges, m.w(pl::RW)),
                    Contains("kernel 'twice' is C source: it needs a device backend"));
  CHECK_THROWS_WITH(pl::kernel_from_source("empty", "  \n"), Contains("the source is empty"));
  CHECK_THROWS_AS(pl::kernel_from_source("two words", "void f() {}"), pl::argument_error);
}

TEST_CASE("PARLOOP_DUMP_SOURCE writes every generated source", "[codegen][dump]") {
  mesh m;
  const auto dir = std::filesystem::temp_directory_path() / ("parloop-dump-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto ir = flux_ir(m);
  for (const auto d : both) {
    auto g = cg::generate(*ir, d);
    CHECK(g.path.empty());
    pl::detail::dump_source(g, dir);
    REQUIRE_FALSE(g.path.empty());
    CHECK(std::filesystem::path(g.path).parent_path() == dir);
    CHECK(std::filesystem::path(g.path).filename().string().rfind("flux-", 0) == 0);
    std::ifstream in(g.path);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(written == g.text);
  }
  // Only the two sources: no temporary file is left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a kernel from source with a syntax error reports the compiler's log", "[codegen][errors]") {
  mesh m;
  const auto ir = std::make_shared<const pl::ir::kernel>(
      failing_source_kernel("broken", "void broken(double* w) { w[0] = 1.0 +; }", pl::dsl::params_of(m.q(pl::RW))));
#if PARLOOP_TEST_OPENCL
  SECTION("clBuildProgram") {
    const auto context = pl::backend::opencl::context::first();
    const auto source = cg::generate(*ir, cg::dialect_kind::opencl);
    try {
      pl::backend::opencl::build_program(context, source);
      FAIL("the broken kernel compiled");
    } catch (const pl::compile_error& e) {
      CHECK_THAT(e.log(), Contains("error"));
      CHECK_THAT(std::string(e.what()), Contains("kernel 'broken' failed to compile with clBuildProgram"));
      CHECK_THAT(std::string(e.what()), Contains(e.log()));
      CHECK_THAT(std::string(e.what()), Contains("| void broken(double* w) { w[0] = 1.0 +; }"));
    }
  }
#endif
#if PARLOOP_TEST_CUDA
  SECTION("NVRTC") {
    const auto source = cg::generate(*ir, cg::dialect_kind::cuda);
    try {
      pl::backend::cuda::build(source, pl::backend::cuda::target{90});
      FAIL("the broken kernel compiled");
    } catch (const pl::compile_error& e) {
      CHECK_THAT(e.log(), Contains("error"));
      CHECK_THAT(std::string(e.what()),
                 Contains("kernel 'broken' failed to compile with NVRTC (--gpu-architecture=sm_90 "));
      CHECK_THAT(std::string(e.what()), Contains("| void broken(double* w) { w[0] = 1.0 +; }"));
    }
  }
#endif
}

TEST_CASE("a PARLOOP_DUMP_SOURCE that cannot be written is said, and the loops run", "[codegen][dump]") {
  mesh m;
  const auto ir = flux_ir(m);
  for (const auto d : both) {
    auto g = cg::generate(*ir, d);
    pl::detail::dump_source(g, "/proc/parloop-cannot-write-here");
    CHECK(g.path.empty());
    CHECK_FALSE(g.text.empty());
  }
}

#if PARLOOP_TEST_OPENCL || PARLOOP_TEST_CUDA
// Only where a device compiler is built in: without one there is nothing to compile.
TEST_CASE("a dumped source is named in the compile error", "[codegen][errors]") {
  mesh m;
  const auto dir = std::filesystem::temp_directory_path() / ("parloop-dump-err-" + std::to_string(::getpid()));
  const auto broken = failing_source_kernel("broken_dumped", "void broken_dumped(double* w) { w[0] = ; }",
                                            pl::dsl::params_of(m.q(pl::RW)));
  const auto dumped = [&](pl::codegen::generated_source source) {
    pl::detail::dump_source(source, dir);
    return source;
  };
  const auto check_named = [](const pl::codegen::generated_source& source, const auto& build) {
    REQUIRE_FALSE(source.path.empty());
    try {
      build(source);
      FAIL("the broken kernel compiled");
    } catch (const pl::compile_error& e) {
      CHECK(e.source_path() == source.path);
      CHECK_THAT(std::string(e.what()), Contains("(source: " + source.path + ")"));
    }
  };
#if PARLOOP_TEST_OPENCL
  const auto context = pl::backend::opencl::context::first();
  check_named(dumped(cg::generate(broken, cg::dialect_kind::opencl)),
              [&](const auto& source) { pl::backend::opencl::build_program(context, source); });
#endif
#if PARLOOP_TEST_CUDA
  check_named(dumped(cg::generate(broken, cg::dialect_kind::cuda)),
              [](const auto& source) { pl::backend::cuda::build(source, pl::backend::cuda::target{90}); });
#endif
  std::filesystem::remove_all(dir);
}

TEST_CASE("generated kernels compile with the real compilers", "[codegen][compile]") {
  mesh m;
  const auto ir = flux_ir(m);
#if PARLOOP_TEST_OPENCL
  const auto context = pl::backend::opencl::context::first();
  const auto program = pl::backend::opencl::build_program(context, cg::generate(*ir, cg::dialect_kind::opencl));
  CHECK_FALSE(pl::backend::opencl::program_binary(program).empty());
#endif
#if PARLOOP_TEST_CUDA
  const auto cu = pl::backend::cuda::build(cg::generate(*ir, cg::dialect_kind::cuda), pl::backend::cuda::target{90});
  CHECK(cu.entry == "pl_kernel_flux");
  // A CUBIN is an ELF file.
  REQUIRE(cu.binary.size() > 4);
  CHECK((cu.binary[0] == 0x7f && cu.binary[1] == 'E' && cu.binary[2] == 'L' && cu.binary[3] == 'F'));
#endif
}
#endif

TEST_CASE("computed indices are checked unless switched off; constant ones never are", "[codegen][index]") {
  mesh m;
  auto k = pl::kernel("indexed", [](auto q, auto n, auto w) { w[0] = pl::cast<float>(q[n] + q[1]); });
  const auto ir = k.traced(m.q(pl::READ, m.e2c, 0), m.n(pl::READ, m.e2c, 1), m.w(pl::RW));
  const std::int32_t tag = pl::ir::kernel_tag("indexed");
  for (const auto d : both) {
    const std::string s = cg::generate(*ir, d).text;
    CHECK(has_line(s, fmt::format("arg2[0] = (float)(arg0[pl_checked_index(arg1[0], 4, 1, {}, pl_index_errors)] + "
                                  "arg0[1]);",
                                  tag)));
    CHECK_THAT(s, Contains("pl_index_errors) {"));  // the entry's last parameter
    CHECK(pl::ir::buffers(*ir).back().role == pl::ir::buffer_role::index_errors);

    const std::string unchecked = cg::generate(*ir, d, pl::split_n_across_workgroups{}, {.check_indices = false}).text;
    CHECK(has_line(unchecked, "arg2[0] = (float)(arg0[arg1[0]] + arg0[1]);"));
    CHECK(count_of(unchecked, "pl_checked_index") == 0);
    CHECK(pl::ir::buffers(*ir, {.check_indices = false}).back().role != pl::ir::buffer_role::index_errors);
  }
  // A kernel whose indices are all constants has no checks and no record.
  const std::string constant = cg::generate(*flux_ir(m), cg::dialect_kind::opencl).text;
  CHECK(count_of(constant, "pl_checked_index") == 0);
  CHECK(count_of(constant, "pl_index_errors") == 0);
}

TEST_CASE("a kernel from source of other types than its arguments fails to build, on both compilers",
          "[codegen][source][errors]") {
  mesh m;
  // A float* for a Dat<double, 4>: without the check this would run and read the doubles as floats.
  const auto wrong = std::make_shared<const pl::ir::kernel>(
      failing_source_kernel("wt", "void wt(float* x) { x[0] = 1.0f; }", pl::dsl::params_of(m.q(pl::RW))));
  // A READ argument's pointer is const.
  const auto not_const = std::make_shared<const pl::ir::kernel>(failing_source_kernel(
      "nc", "void nc(double* a, double* b) { b[0] = a[0]; }", pl::dsl::params_of(m.q(pl::READ), m.res(pl::RW))));
  CHECK_THAT(cg::generate(*wrong, cg::dialect_kind::opencl).text, Contains("void pl_fn_wt(double* a0);"));
#if PARLOOP_TEST_OPENCL
  const auto context = pl::backend::opencl::context::first();
  for (const auto& ir : {wrong, not_const}) {
    try {
      pl::backend::opencl::build_program(context, cg::generate(*ir, cg::dialect_kind::opencl));
      FAIL("a kernel from source of the wrong types compiled");
    } catch (const pl::compile_error& e) {
      CHECK_THAT(e.log(), Contains("conflicting types"));
    }
  }
#endif
#if PARLOOP_TEST_CUDA
  for (const auto& ir : {wrong, not_const}) {
    try {
      pl::backend::cuda::build(cg::generate(*ir, cg::dialect_kind::cuda), pl::backend::cuda::target{90});
      FAIL("a kernel from source of the wrong types compiled");
    } catch (const pl::compile_error& e) {
      CHECK_THAT(e.log(), Contains("invalid type conversion"));
    }
  }
#endif
}

TEST_CASE("a file-scope constant in a kernel from source is PL_CONSTANT; a plain const is explained",
          "[codegen][source][errors]") {
  mesh m;
  const auto with_constant = pl::kernel_from_source("scaled", R"(
PL_CONSTANT double gam = 1.4;
void scaled(double* x) { x[0] *= gam; }
)");
  for (const auto d : both) {
    CHECK_THAT(cg::generate(*with_constant.ir(m.q(pl::RW)), d).text, Contains("#define PL_CONSTANT"));
  }
#if PARLOOP_TEST_OPENCL
  const auto plain = std::make_shared<const pl::ir::kernel>(failing_source_kernel(
      "plain", "const double gam = 1.4;\nvoid plain(double* x) { x[0] *= gam; }", pl::dsl::params_of(m.q(pl::RW))));
  const auto context = pl::backend::opencl::context::first();
  // OpenCL C 3.0 compilers with program-scope globals (newer PoCL) accept it; the others refuse
  // it, and the message then says what to write.
  try {
    pl::backend::opencl::build_program(context, cg::generate(*plain, cg::dialect_kind::opencl));
  } catch (const pl::compile_error& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("A file-scope constant in a kernel from source is declared `PL_CONSTANT double k = 2.0;`"));
  }
#endif
}

}  // namespace test_codegen
