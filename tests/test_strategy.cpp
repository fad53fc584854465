// SPDX-License-Identifier: MIT
// Launch strategies and their grid-size functors: the formulas, their values at the edges of
// the index range, validation of damaged programs, cereal round trips, and the element loop
// each strategy generates.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <cereal/archives/binary.hpp>

#include <parloop/cache/kernel_record.hpp>
#include <parloop/codegen/generate.hpp>
#include <parloop/codegen/kernel_source.hpp>
#include <parloop/parloop.hpp>

#include "build_everywhere.hpp"
#include "random_mesh.hpp"
#include "sample_kernels.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_strategy {

namespace pl = parloop;
namespace cg = parloop::codegen;
using Catch::Matchers::Contains;

TEST_CASE("each strategy's grid-size functor, as a formula", "[strategy]") {
  CHECK(cg::grid_size(pl::split_n_across_workgroups{256}).to_string() == "ceil_div(end - start, 256)");
  CHECK(cg::grid_size(pl::grid_stride{128, 4}).to_string() == "min(ceil_div(end - start, 128), compute_units * 4)");
  CHECK(cg::grid_size(pl::chunked{16, 64}).to_string() == "ceil_div(ceil_div(end - start, 64), 16)");
  CHECK(cg::grid_size(pl::vectors_across_workgroups{128, 2}).to_string() ==
        "ceil_div(min((ceil_div(end, 2) - ceil_div(start + 1, 2)) + 1, end - start), 128)");
  CHECK(pl::detail::block_size(pl::grid_stride{128, 4}) == 128);
  CHECK(pl::to_string(pl::vectors_across_workgroups{64, 4}) == "vectors_across_workgroups{64, 4}");
}

TEST_CASE("grid sizes at the edges of the index range", "[strategy]") {
  const pl::ir::device_facts dev{132};
  const auto split = cg::grid_size(pl::split_n_across_workgroups{256});
  CHECK(split(0, 0, dev) == 0);
  CHECK(split(7, 7, dev) == 0);
  CHECK(split(0, 1, dev) == 1);
  CHECK(split(0, 256, dev) == 1);
  CHECK(split(0, 257, dev) == 2);
  CHECK(split(10, 522, dev) == 2);
  CHECK(split(0, INT_MAX, dev) == (std::int64_t{INT_MAX} + 255) / 256);
  CHECK(split(INT_MAX - 1, INT_MAX, dev) == 1);

  const auto stride = cg::grid_size(pl::grid_stride{256, 4});
  CHECK(stride(0, 0, dev) == 0);
  CHECK(stride(0, 1000, dev) == 4);           // a short range: no more groups than elements need
  CHECK(stride(0, INT_MAX, dev) == 132 * 4);  // a long one: the device's size
  CHECK(stride(0, 1000, pl::ir::device_facts{1}) == 4);

  const auto chunk = cg::grid_size(pl::chunked{16, 64});
  CHECK(chunk(0, 0, dev) == 0);
  CHECK(chunk(0, 1, dev) == 1);
  CHECK(chunk(0, 64 * 16, dev) == 1);
  CHECK(chunk(0, 64 * 16 + 1, dev) == 2);
  CHECK(chunk(INT_MAX - 5, INT_MAX, dev) == 1);

  // Work-items take the widths from the multiple of 4 at or below start.
  const auto vectors = cg::grid_size(pl::vectors_across_workgroups{16, 4});
  CHECK(vectors(0, 0, dev) == 0);
  CHECK(vectors(9, 9, dev) == 0);
  CHECK(vectors(3, 4, dev) == 1);
  CHECK(vectors(3, 5, dev) == 1);  // elements 0..7: 2 work-items
  CHECK(vectors(4, 5, dev) == 1);
  CHECK(vectors(0, 64, dev) == 1);
  CHECK(vectors(0, 65, dev) == 2);
  CHECK(vectors(3, 64, dev) == 1);  // elements 0..63: 16 work-items
  CHECK(vectors(3, 65, dev) == 2);  // 0..67: 17
  CHECK(vectors(0, INT_MAX, dev) == (std::int64_t{INT_MAX} + 63) / 64);
  CHECK(vectors(INT_MAX - 1, INT_MAX, dev) == 1);

  // Every element is covered exactly once: groups * block work-items, each with its share.
  for (int trial = 0; trial < 1000; ++trial) {
    std::uniform_int_distribution<std::int64_t> pick(0, INT_MAX);
    std::int64_t a = pick(parloop_test::rng()), b = pick(parloop_test::rng());
    if (trial % 3 == 0) b = a + trial;  // short ranges too
    if (a > b) std::swap(a, b);
    b = std::min<std::int64_t>(b, INT_MAX);
    const std::int64_t n = b - a;
    const std::int64_t items_split = split(a, b, dev) * 256;
    CHECK((items_split >= n && items_split - n < 256));
    const std::int64_t items_chunk = chunk(a, b, dev) * 16;
    CHECK((items_chunk * 64 >= n && (n == 0 ? items_chunk == 0 : items_chunk * 64 - n < 64 * 16)));
    CHECK(stride(a, b, dev) <= 132 * 4);
    CHECK((n == 0) == (stride(a, b, dev) == 0));
    // Work-item i takes [4 * (a / 4 + i), + 4): the last one needed holds b - 1.
    const std::int64_t needed = n == 0 ? 0 : (b - 1) / 4 - a / 4 + 1;
    CHECK(vectors(a, b, dev) == (needed + 15) / 16);
  }
}

TEST_CASE("a strategy with impossible parameters is refused", "[strategy]") {
  CHECK_THROWS_AS(cg::grid_size(pl::split_n_across_workgroups{0}), pl::argument_error);
  CHECK_THROWS_WITH(cg::grid_size(pl::split_n_across_workgroups{2048}),
                    Contains("strategy split_n_across_workgroups{2048}: the block must be 1 to 1024"));
  CHECK_THROWS_AS(cg::grid_size(pl::grid_stride{64, 0}), pl::argument_error);
  CHECK_THROWS_AS(cg::grid_size(pl::chunked{64, 0}), pl::argument_error);
  CHECK_THROWS_WITH(cg::grid_size(pl::vectors_across_workgroups{64, 3}),
                    Contains("strategy vectors_across_workgroups{64, 3}: the block must be 1 to 1024 work-items, waves "
                             "and per_item at least 1, and width 2 or 4"));
}

TEST_CASE("grid-size functors round-trip through cereal and damaged ones are refused", "[strategy][cache]") {
  for (const pl::strategy s : {pl::strategy{pl::split_n_across_workgroups{64}}, pl::strategy{pl::grid_stride{32, 8}},
                               pl::strategy{pl::chunked{8, 128}}, pl::strategy{pl::vectors_across_workgroups{32, 4}}}) {
    const auto f = cg::grid_size(s);
    std::stringstream buffer;
    {
      cereal::BinaryOutputArchive out(buffer);
      out(f);
    }
    pl::ir::grid_size_functor back;
    {
      cereal::BinaryInputArchive in(buffer);
      in(back);
    }
    CHECK(back == f);
    CHECK(back(3, 100000, pl::ir::device_facts{80}) == f(3, 100000, pl::ir::device_facts{80}));
  }

  using pl::ir::grid_node;
  using pl::ir::grid_op;
  CHECK_THROWS_WITH(pl::ir::grid_size_functor(std::vector<grid_node>{}), Contains("0 operations"));
  CHECK_THROWS_WITH(pl::ir::grid_size_functor(std::vector<grid_node>{{grid_op::end, 0}, {grid_op::sub, 0}}),
                    Contains("lacks its operands"));
  CHECK_THROWS_WITH(pl::ir::grid_size_functor(std::vector<grid_node>{{grid_op::end, 0}, {grid_op::start, 0}}),
                    Contains("does not reduce to one value"));
  CHECK_THROWS_WITH(pl::ir::grid_size_functor(std::vector<grid_node>{{static_cast<grid_op>(200), 0}}),
                    Contains("unknown operation 200"));
  std::vector<grid_node> deep(17, {grid_op::constant, 1});
  CHECK_THROWS_WITH(pl::ir::grid_size_functor(deep), Contains("too deep"));

  // A record whose operation byte was damaged is refused while loading.
  std::stringstream buffer;
  {
    cereal::BinaryOutputArchive out(buffer);
    out(cg::grid_size(pl::split_n_across_workgroups{256}));
  }
  std::string bytes = buffer.str();
  bytes[8] = static_cast<char>(99);  // the first node's operation, after the 8-byte length
  std::stringstream damaged(bytes);
  cereal::BinaryInputArchive in(damaged);
  pl::ir::grid_size_functor back;
  CHECK_THROWS_AS(in(back), pl::error);
}

TEST_CASE("each strategy generates its element loop, and it compiles", "[strategy][codegen]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 8), edges(rt, 9);
  const pl::Map e2c(edges, cells, 2, parloop_test::random_map(9, 8, 2));
  pl::Dat<double, 4> q(cells), res(cells);
  pl::Global<double> total(rt, 0.0);
  auto k = pl::kernel("flux_total", [](auto qa, auto ra, auto total) {
    ra[0] += qa[1];
    total += qa[0];
  });
  const auto ir = k.traced(q(pl::READ, e2c, 0), res(pl::INC, e2c, 1), total(pl::INC));
  const std::string split = cg::generate(*ir, cg::dialect_kind::opencl, pl::split_n_across_workgroups{}).text;
  CHECK_THAT(split, Contains("const long pl_e = (long)pl_start + pl_item;\n  if (pl_e < pl_end) {"));
  const std::string stride = cg::generate(*ir, cg::dialect_kind::opencl, pl::grid_stride{}).text;
  CHECK_THAT(stride,
             Contains("for (long pl_e = (long)pl_start + pl_item; pl_e < pl_end; pl_e += (long)get_global_size(0)) {"));
  const std::string cu = cg::generate(*ir, cg::dialect_kind::cuda, pl::grid_stride{}).text;
  CHECK_THAT(cu, Contains("pl_e += ((long long)gridDim.x * blockDim.x)) {"));
  const std::string chunk = cg::generate(*ir, cg::dialect_kind::opencl, pl::chunked{16, 32}).text;
  CHECK_THAT(chunk, Contains("const long pl_first = (long)pl_start + (long)pl_item * 32;"));
  CHECK_THAT(chunk, Contains("const long pl_last = pl_first + 32 < pl_end ? pl_first + 32 : pl_end;"));
  CHECK_THAT(chunk, Contains("for (long pl_e = pl_first; pl_e < pl_last; ++pl_e) {"));
  // The partial of a reduction gathers every element of the work-item, in any strategy.
  CHECK(chunk.find("double arg2[1];") < chunk.find("for (long pl_e"));
  CHECK(chunk.find("pl_group2[pl_local] = arg2[0];") > chunk.find("pl_atomic_add_f64(&data1"));
  CHECK_THAT(chunk, Contains("__local double pl_group2[16];"));

  for (const pl::strategy s : {pl::strategy{pl::split_n_across_workgroups{}}, pl::strategy{pl::grid_stride{}},
                               pl::strategy{pl::chunked{}}, pl::strategy{pl::vectors_across_workgroups{}}}) {
    parloop_test::check_builds_everywhere(*ir, s);
  }
}

}  // namespace test_strategy
