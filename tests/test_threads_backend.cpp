// SPDX-License-Identifier: MIT
// The threads backend's own guarantees, beyond the device matrix it runs too: its pool (jobs,
// barriers, a job that throws), the colouring of blocks, results that do not depend on the
// thread count, increments through maps at any block size, and a kernel that throws on a
// worker thread.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <parloop/backend/threads/pool.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"
#include "temporary_folder.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_threads_backend {

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_values;

pl::Runtime threads_runtime(int threads, int block = pl::detail::default_thread_block) {
  const parloop_test::scoped_env count("PARLOOP_THREADS", std::to_string(threads).c_str());
  pl::Runtime rt = pl::Runtime::open(pl::backend_kind::threads);
  rt.state()->thread_block = block;
  return rt;
}

TEST_CASE("the pool runs a job on every thread, and its barrier orders the job's steps", "[threads_backend][pool]") {
  for (const int size : {1, 2, 5}) {
    pl::detail::thread_pool pool(size, false);
    REQUIRE(pool.size() == size);
    constexpr int steps = 50;
    std::vector<int> seen(static_cast<std::size_t>(size * steps), -1);
    std::atomic<int> arrived{0};
    for (int job = 0; job < 20; ++job) {
      arrived = 0;
      pool.run([&](int t) {
        for (int step = 0; step < steps; ++step) {
          arrived.fetch_add(1);
          pool.barrier();
          // Every thread has arrived at this step's barrier and none at the next one's.
          seen[static_cast<std::size_t>(step * size + t)] = arrived.load();
          pool.barrier();
        }
      });
      for (int step = 0; step < steps; ++step) {
        for (int t = 0; t < size; ++t) CHECK(seen[static_cast<std::size_t>(step * size + t)] == (step + 1) * size);
      }
    }
  }
}

TEST_CASE("an exception thrown on any thread of a job reaches the caller once all have stopped",
          "[threads_backend][pool]") {
  pl::detail::thread_pool pool(3, false);
  std::atomic<int> finished{0};
  CHECK_THROWS_WITH(pool.run([&](int t) {
    if (t == 2) throw std::runtime_error("thread 2 failed");
    finished.fetch_add(1);
  }),
                    "thread 2 failed");
  CHECK(finished == 2);
  // The pool runs the next job as ever.
  finished = 0;
  pool.run([&](int) { finished.fetch_add(1); });
  CHECK(finished == 3);
}

TEST_CASE("blocks of one colour reach no common target, and each block has one colour", "[threads_backend][coloring]") {
  const int edges = 5000, cells = 700;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  pl::transfer_stats transfers;
  const std::vector<pl::detail::combined_targets> through{{e2c, 2, 0, 1, 0, cells}};
  for (const int block : {1, 16, 64, 256}) {
    for (const pl::range r : {pl::range{0, edges}, pl::range{123, 4567}}) {
      INFO("block " << block << ", range " << r.start << ".." << r.end);
      const auto colors = pl::detail::color_blocks(r.start, r.end, block, through, transfers);
      const int blocks = (r.end - r.start + block - 1) / block;
      REQUIRE(static_cast<int>(colors->order.size()) == blocks);
      std::vector<int> times(static_cast<std::size_t>(blocks), 0);
      for (int c = 0; c < colors->colors(); ++c) {
        std::set<pl::index_t> reached;
        std::size_t reaches = 0;
        for (pl::index_t i = colors->offsets[static_cast<std::size_t>(c)];
             i < colors->offsets[static_cast<std::size_t>(c) + 1]; ++i) {
          const pl::index_t b = colors->order[static_cast<std::size_t>(i)];
          ++times[static_cast<std::size_t>(b)];
          // A block's own elements may share targets (they run in order); blocks of a colour may not.
          std::set<pl::index_t> mine;
          for (pl::index_t e = r.start + b * block; e < std::min(r.end, r.start + (b + 1) * block); ++e) {
            mine.insert(e2c[2 * static_cast<std::size_t>(e)]);
            mine.insert(e2c[2 * static_cast<std::size_t>(e) + 1]);
          }
          reaches += mine.size();
          reached.insert(mine.begin(), mine.end());
        }
        CHECK(reached.size() == reaches);
      }
      CHECK(std::all_of(times.begin(), times.end(), [](int t) { return t == 1; }));
    }
  }
}

TEST_CASE("reductions on threads give the same bits on any thread count, the host's to rounding",
          "[threads_backend][reduction]") {
  const int n = 100000;
  const auto values = parloop_test::random_values<double>(3 * static_cast<std::size_t>(n));
  auto reduce = pl::kernel("reduce3", [](auto v, auto sum, auto lo, auto hi) {
    for (int k = 0; k < 3; ++k) {
      sum[k] += v[k] * v[k];
      lo[k] = pl::min(lo[k], v[k]);
      hi[k] = pl::max(hi[k], v[k]);
    }
  });
  struct result {
    std::vector<double> sum, lo, hi;
  };
  const auto run = [&](const pl::Runtime& rt) {
    const pl::Set s(rt, n);
    const pl::Dat<double, 3> v(s, values);
    pl::Global<double, 3> sum(rt, {1.0, 2.0, 3.0}), lo(rt, {0.5, 0.5, 0.5}), hi(rt, {-0.5, -0.5, -0.5});
    pl::par_loop(reduce, s, v(pl::READ), sum(pl::INC), lo(pl::MIN), hi(pl::MAX));
    const auto get = [](const pl::Global<double, 3>& g) {
      const auto x = g.values();
      return std::vector<double>(x.begin(), x.end());
    };
    return result{get(sum), get(lo), get(hi)};
  };
  const result host = run(pl::Runtime::open(pl::backend_kind::host));
  const result one = run(threads_runtime(1));
  check_values<double>(one.sum, host.sum);
  CHECK(one.lo == host.lo);  // MIN and MAX are exact in any order
  CHECK(one.hi == host.hi);
  for (const int threads : {2, 3, 7}) {
    INFO(threads << " threads");
    const result r = run(threads_runtime(threads));
    CHECK(std::memcmp(r.sum.data(), one.sum.data(), 3 * sizeof(double)) == 0);
    CHECK(r.lo == one.lo);
    CHECK(r.hi == one.hi);
  }

  // Over an extruded set, whose blocks of columns shrink to spread a short base over the threads.
  const int columns = 1000, layers = 3;
  const auto heights = parloop_test::random_values<double>(static_cast<std::size_t>(columns) * layers);
  auto squares = pl::kernel("reduce_cells", [](auto h, auto sum) { sum += h * h; });
  const auto column_sum = [&](const pl::Runtime& rt) {
    const pl::Set base(rt, columns);
    const pl::ExtrudedSet cells(base, layers);
    const pl::Dat<double> h(cells, heights);
    pl::Global<double> sum(rt, 0.0);
    pl::par_loop(squares, cells, h(pl::READ), sum(pl::INC));
    return sum.value();
  };
  const double first = column_sum(threads_runtime(1));
  CHECK(first == Approx(column_sum(pl::Runtime::open(pl::backend_kind::host))).epsilon(1e-12));
  for (const int threads : {2, 3, 7}) {
    INFO(threads << " threads, extruded");
    const double sum = column_sum(threads_runtime(threads));
    CHECK(std::memcmp(&sum, &first, sizeof sum) == 0);
  }
}

TEST_CASE("a loop that reduces into a global is not autotuned on threads: its sum is one block size's",
          "[threads_backend][autotune][reduction]") {
  const int n = 1 << 16;
  const auto values = parloop_test::random_values<float>(static_cast<std::size_t>(n));
  auto total_of = pl::kernel("sum_untuned", [](auto v, auto total) { total += v; });
  const auto run = [&](const pl::Runtime& rt, bool tune) {
    const pl::Set s(rt, n);
    const pl::Dat<float> v(s, values);
    pl::Global<float> total(rt, 0.0f);
    if (tune)
      pl::par_loop(total_of, s, pl::autotune{}, v(pl::READ), total(pl::INC));
    else
      pl::par_loop(total_of, s, v(pl::READ), total(pl::INC));
    return total.value();
  };
  const float untuned = run(threads_runtime(3), false);
  const std::uint64_t before = total_of.cache().tunings();
  for (const int threads : {2, 3}) {
    const float tuned = run(threads_runtime(threads), true);
    CHECK(std::memcmp(&tuned, &untuned, sizeof tuned) == 0);
  }
  CHECK(total_of.cache().tunings() == before);
}

TEST_CASE("increments through maps on threads agree with the host at any block size", "[threads_backend][inc]") {
  const int edges = 20000, cells = 3000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const auto w0 = parloop_test::random_values<double>(2 * static_cast<std::size_t>(edges));
  auto spread = pl::kernel("spread_threads", [](auto w, auto a, auto b, auto low) {
    a[0] += w[0];
    a[1] -= w[1];
    b[0] -= w[0];
    b[1] += w[0] * w[1];
    low = pl::min(low, w[0] + w[1]);
  });
  const auto run = [&](const pl::Runtime& rt) {
    const pl::Set e(rt, edges), c(rt, cells);
    const pl::Map m(e, c, 2, e2c);
    const pl::Dat<double, 2> w(e, w0);
    pl::Dat<double, 2> acc(c);
    pl::Dat<double> low(c, std::vector<double>(cells, 10.0));
    pl::par_loop(spread, e, w(pl::READ), acc(pl::INC, m, 0), acc(pl::INC, m, 1), low(pl::MIN, m, 1));
    // Twice: the block colouring found again.
    pl::par_loop(spread, e, pl::range{100, edges - 100}, w(pl::READ), acc(pl::INC, m, 0), acc(pl::INC, m, 1),
                 low(pl::MIN, m, 1));
    const auto a = acc.host();
    const auto l = low.host();
    std::vector<double> out(a.begin(), a.end());
    out.insert(out.end(), l.begin(), l.end());
    return out;
  };
  const std::vector<double> want = run(pl::Runtime::open(pl::backend_kind::host));
  for (const int block : {1, 3, 100, 256, 5000}) {
    INFO("block " << block);
    check_values<double>(run(threads_runtime(3, block)), want);
  }
}

TEST_CASE("an autotuned loop on threads times the block sizes once, and its result is one call's",
          "[threads_backend][autotune]") {
  const int edges = 30000, cells = 5000;
  const std::vector<pl::index_t> e2c = parloop_test::random_map(edges, cells, 2);
  const auto w0 = parloop_test::random_values<double>(static_cast<std::size_t>(edges));
  auto flow = pl::kernel("flow_tuned", [](auto w, auto a, auto b) {
    a += w;
    b -= 2.0 * w;
  });
  struct result {
    std::vector<double> acc;
    std::uint64_t tunings;
  };
  const auto run = [&](const pl::Runtime& rt, bool tune) {
    const pl::Set e(rt, edges), c(rt, cells);
    const pl::Map m(e, c, 2, e2c);
    const pl::Dat<double> w(e, w0);
    pl::Dat<double> acc(c, std::vector<double>(cells, 1.0));
    const std::uint64_t before = flow.cache().tunings();
    for (int call = 0; call < 2; ++call) {
      if (tune)
        pl::par_loop(flow, e, pl::autotune{}, w(pl::READ), acc(pl::INC, m, 0), acc(pl::INC, m, 1));
      else
        pl::par_loop(flow, e, w(pl::READ), acc(pl::INC, m, 0), acc(pl::INC, m, 1));
    }
    const auto a = acc.host();
    return result{std::vector<double>(a.begin(), a.end()), flow.cache().tunings() - before};
  };
  const result host = run(pl::Runtime::open(pl::backend_kind::host), false);
  const pl::Runtime rt = threads_runtime(3);
  // Timed at the first call only; the arrays put back after each candidate, so that two calls
  // add what two calls of the host add.
  const result tuned = run(rt, true);
  CHECK(tuned.tunings == 1);
  check_values<double>(tuned.acc, host.acc);
  // The choice is kept for the kernel's signature on this runtime: a loop over new arrays of the
  // same shape finds it.
  CHECK(run(rt, true).tunings == 0);
  // Another runtime chooses for itself.
  CHECK(run(threads_runtime(2), true).tunings == 1);
  // PARLOOP_AUTOTUNE=1 tunes the loops that name nothing.
  pl::Runtime every = threads_runtime(2);
  every.set_autotune(true);
  CHECK(run(every, false).tunings == 1);

  // With the disk cache on, the choice is stored, and a later runtime of as many threads (a later
  // run of the program) times nothing; one of another thread count chooses for itself.
  const parloop_test::temporary_folder folder;
  const parloop_test::scoped_env on("PARLOOP_CACHE", "on"), dir("PARLOOP_CACHE_DIR", folder.path.c_str());
  CHECK(run(threads_runtime(3), true).tunings == 1);
  const result again = run(threads_runtime(3), true);
  CHECK(again.tunings == 0);
  check_values<double>(again.acc, host.acc);
  std::size_t entries = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(folder.path / "threads")) {
    entries += f.path().extension() == ".plk" ? 1 : 0;
  }
  CHECK(entries == 1);
  CHECK(run(threads_runtime(2), true).tunings == 1);
}

TEST_CASE("a kernel that throws on a worker thread is reported once, naming it, and the next loop runs",
          "[threads_backend][errors]") {
  const pl::Runtime rt = threads_runtime(3, 64);
  const int n = 30000;
  const pl::Set s(rt, n);
  std::vector<std::int32_t> pick(n, 1);
  pick[static_cast<std::size_t>(n - 7)] = 4;  // in the last thread's part
  const pl::Dat<std::int32_t> which(s, pick);
  const pl::Dat<double, 2> q(s, parloop_test::random_values<double>(2 * static_cast<std::size_t>(n)));
  pl::Dat<double> out(s);
  pl::Global<double> total(rt, 0.0);
  auto gather = pl::kernel("gather_threads", [](auto q, auto i, auto out, auto total) {
    out = q[i];
    total += q[i];
  });
  // Direct (chunks) and reducing (blocks): both report from the worker.
  CHECK_THROWS_WITH(pl::par_loop(gather, s, q(pl::READ), which(pl::READ), out(pl::WRITE), total(pl::INC)),
                    Contains("kernel 'gather_threads': argument 0 has 2 components; index 4 is out of range"));
  auto copy = pl::kernel("copy_threads", [](auto q, auto i, auto out) { out = q[i]; });
  CHECK_THROWS_WITH(pl::par_loop(copy, s, q(pl::READ), which(pl::READ), out(pl::WRITE)),
                    Contains("kernel 'copy_threads': argument 0 has 2 components; index 4 is out of range"));
  pl::Dat<std::int32_t> fixed(s, std::vector<std::int32_t>(n, 0));
  pl::par_loop(copy, s, q(pl::READ), fixed(pl::READ), out(pl::WRITE));
  const auto qs = q.host();
  std::vector<double> want(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = qs[2 * i];
  check_values<double>(out.host(), want);
}

}  // namespace test_threads_backend
