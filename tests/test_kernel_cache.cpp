// SPDX-License-Identifier: MIT
// The in-memory kernel cache, on fake backends (host memory, nothing runs): one trace per
// signature and one build per backend and strategy however many threads ask; a build holds up
// no other key and no warm launch; a closed runtime's launchers are dropped; a failed trace or
// build leaves nothing behind. The counters PARLOOP_STATS reports, and its report's text.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <parloop/parloop.hpp>

#include "fake_backend.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_kernel_cache {

namespace pl = parloop;
using parloop_test::fake_backend;
using parloop_test::runtime_on;
using parloop_test::scoped_env;

namespace {

auto scale_kernel() {
  return pl::kernel("scale", [](auto x, auto factor) { x *= factor; });
}

// A set with one dat on its own fake runtime: what one thread loops over.
struct fake_mesh {
  explicit fake_mesh(std::shared_ptr<fake_backend> b)
      : backend(std::move(b)), rt(runtime_on(backend)), points(rt, 1000), x(points), factor(rt, 2.0) {}
  std::shared_ptr<fake_backend> backend;
  pl::Runtime rt;
  pl::Set points;
  pl::Dat<double> x;
  pl::Global<double> factor;
};

template <class K>
void loop(const K& k, fake_mesh& m, const pl::strategy& s) {
  pl::par_loop(k, m.points, s, m.x(pl::RW), m.factor(pl::READ));
}

}  // namespace

TEST_CASE("a build holds up neither warm launches nor other backends", "[cache][threads]") {
  auto k = scale_kernel();
  fake_mesh warm(std::make_shared<fake_backend>());
  const pl::strategy s = pl::split_n_across_workgroups{64};
  loop(k, warm, s);
  REQUIRE(warm.backend->builds == 1);

  // A build on another runtime waits at the gate until the test opens it.
  fake_mesh slow(std::make_shared<fake_backend>());
  std::promise<void> open_gate;
  slow.backend->gate = open_gate.get_future().share();
  auto blocked = std::async(std::launch::async, [&] { loop(k, slow, s); });
  while (slow.backend->waiting == 0) std::this_thread::yield();

  // Meanwhile: warm launches on the first runtime, and a build on a third, both finish.
  auto warm_launches = std::async(std::launch::async, [&] {
    for (int i = 0; i < 100; ++i) loop(k, warm, s);
  });
  fake_mesh other(std::make_shared<fake_backend>());
  auto other_build = std::async(std::launch::async, [&] { loop(k, other, pl::chunked{4, 4}); });
  const bool warm_done = warm_launches.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  const bool other_done = other_build.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  open_gate.set_value();
  blocked.get();
  warm_launches.get();
  other_build.get();
  CHECK(warm_done);
  CHECK(other_done);
  CHECK(warm.backend->enqueues == 101);
  CHECK(warm.backend->builds == 1);
  CHECK(slow.backend->builds == 1);
  CHECK(other.backend->builds == 1);
  CHECK(k.traces() == 1);
  CHECK(k.compiles() == 3);
  CHECK(k.launchers() == 3);
}

TEST_CASE("threads that need one signature at once trace it once", "[cache][threads]") {
  auto k = scale_kernel();
  constexpr int n_threads = 8;
  std::vector<std::unique_ptr<fake_mesh>> meshes;
  for (int t = 0; t < n_threads; ++t) meshes.push_back(std::make_unique<fake_mesh>(std::make_shared<fake_backend>()));
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < n_threads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready < n_threads) std::this_thread::yield();
      for (int i = 0; i < 20; ++i) loop(k, *meshes[static_cast<std::size_t>(t)], pl::grid_stride{32, 2});
    });
  }
  for (auto& t : threads) t.join();
  CHECK(k.traces() == 1);
  CHECK(k.compiles() == n_threads);
  CHECK(k.launches() == n_threads * 20);
  for (const auto& m : meshes) CHECK(m->backend->builds == 1);
}

TEST_CASE("a closed runtime's launchers are dropped, and a kernel may go before its runtime", "[cache][lifetime]") {
  auto k = scale_kernel();
  fake_mesh kept(std::make_shared<fake_backend>());
  {
    fake_mesh closed(std::make_shared<fake_backend>());
    loop(k, kept, pl::split_n_across_workgroups{64});
    loop(k, closed, pl::split_n_across_workgroups{64});
    loop(k, closed, pl::chunked{8, 8});
    CHECK(k.launchers() == 3);
  }
  CHECK(k.launchers() == 1);
  // The runtime that stays still launches from its slot.
  loop(k, kept, pl::split_n_across_workgroups{64});
  CHECK(kept.backend->builds == 1);
  CHECK(kept.backend->enqueues == 2);

  // Many runtimes opened and closed leave nothing behind, compiled or recorded: the kernel
  // keeps the open runtime's record alone, and its launches walk no closed one's.
  for (int i = 0; i < 50; ++i) {
    fake_mesh brief(std::make_shared<fake_backend>());
    loop(k, brief, pl::split_n_across_workgroups{64});
    loop(k, kept, pl::chunked{8, 8});
  }
  CHECK(k.launchers() == 2);
  CHECK(k.cache().records() == 2);
  loop(k, kept, pl::split_n_across_workgroups{64});
  CHECK(kept.backend->builds == 2);

  // A kernel that goes first takes its launchers with it; the runtime closes cleanly later.
  {
    auto short_lived = scale_kernel();
    loop(short_lived, kept, pl::split_n_across_workgroups{64});
    CHECK(short_lived.launchers() == 1);
  }
  loop(k, kept, pl::split_n_across_workgroups{64});
  CHECK(kept.backend->builds == 3);
}

TEST_CASE("a failed trace or build is not kept: the next call tries again", "[cache][errors]") {
  auto bad = pl::kernel("bad", [](auto x, auto) { x = x + 1.0; });  // WRITE read before written
  fake_mesh m(std::make_shared<fake_backend>());
  for (int i = 0; i < 2; ++i) {
    CHECK_THROWS_AS(pl::par_loop(bad, m.points, m.x(pl::WRITE), m.factor(pl::READ)), pl::trace_error);
  }
  CHECK(bad.traces() == 0);

  // A strategy the device cannot launch is refused before anything is built.
  auto k = scale_kernel();
  CHECK_THROWS_AS(loop(k, m, pl::split_n_across_workgroups{4096}), pl::argument_error);
  CHECK(m.backend->builds == 0);
  loop(k, m, pl::split_n_across_workgroups{64});
  CHECK(m.backend->builds == 1);
  CHECK(k.launchers() == 1);
}

TEST_CASE("a warm launch takes no lock, whatever the number of live runtimes and strategies", "[cache][launch]") {
  auto k = scale_kernel();
  // More runtimes than an entry's slots: their ids meet modulo the slots.
  std::vector<std::unique_ptr<fake_mesh>> meshes;
  for (int i = 0; i < 9; ++i) meshes.push_back(std::make_unique<fake_mesh>(std::make_shared<fake_backend>()));
  const std::vector<pl::strategy> strategies = {pl::grid_stride{32, 2}, pl::chunked{4, 4}};
  for (const auto& m : meshes) {
    for (const pl::strategy& s : strategies) loop(k, *m, s);
  }
  const auto& stats = k.cache().stats();
  CHECK(stats.compiles == 18);
  const std::uint64_t locked = stats.locked_hits, hits = stats.memory_hits;
  // Every runtime in turn, each strategy in turn: the slots never hold the kernel wanted.
  for (int round = 0; round < 3; ++round) {
    for (const auto& m : meshes) {
      for (const pl::strategy& s : strategies) loop(k, *m, s);
    }
  }
  CHECK(stats.memory_hits == hits + 54);
  CHECK(stats.locked_hits == locked);
  for (const auto& m : meshes) CHECK(m->backend->builds == 2);
}

TEST_CASE("an empty range launches nothing and moves nothing", "[cache][launch]") {
  auto k = scale_kernel();
  fake_mesh m(std::make_shared<fake_backend>());
  pl::par_loop(k, m.points, pl::range{10, 10}, m.x(pl::RW), m.factor(pl::READ));
  CHECK(m.backend->enqueues == 0);
  CHECK(m.rt.transfers().to_device == 0);
  CHECK(k.compiles() == 1);
  CHECK(k.launches() == 1);
}

TEST_CASE("a loop that reduces into a global takes the runtime's reduction strategy", "[cache][strategy]") {
  fake_mesh m(std::make_shared<fake_backend>());
  auto k = scale_kernel();
  pl::Global<double> total(m.rt, 0.0);
  auto sum = pl::kernel("sum", [](auto x, auto total) { total += x; });
  pl::par_loop(k, m.points, m.x(pl::RW), m.factor(pl::READ));
  CHECK(m.backend->last_grid == "ceil_div(end - start, 256)");
  pl::par_loop(sum, m.points, m.x(pl::READ), total(pl::INC));
  CHECK(m.backend->last_grid == "min(ceil_div(end - start, 256), compute_units * 4)");
  // A strategy the program sets is the default for both.
  m.rt.set_default_strategy(pl::chunked{8, 32});
  CHECK(pl::to_string(m.rt.default_reduction_strategy()) == "chunked{8, 32}");
  pl::par_loop(sum, m.points, m.x(pl::READ), total(pl::INC));
  CHECK(m.backend->last_grid == "ceil_div(ceil_div(end - start, 32), 8)");
}

TEST_CASE("each launch is counted once: a compile, a disk hit or a memory hit", "[cache][stats]") {
  auto k = scale_kernel();
  fake_mesh a(std::make_shared<fake_backend>()), b(std::make_shared<fake_backend>());
  for (int i = 0; i < 10; ++i) loop(k, a, pl::grid_stride{32, 2});
  for (int i = 0; i < 5; ++i) loop(k, b, pl::grid_stride{32, 2});
  loop(k, a, pl::chunked{4, 4});
  const auto& stats = k.cache().stats();
  CHECK(stats.name == "scale");
  CHECK(stats.launches == 16);
  CHECK(stats.compiles == 3);
  CHECK(stats.disk_hits == 0);
  CHECK(stats.memory_hits == 13);
  CHECK(stats.traces == 1);
  // Without PARLOOP_STATS no call is timed.
  CHECK(stats.run_ns == 0);
  CHECK(stats.bytes == 0);

  // The host counts its calls too, over an empty range as well.
  pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  pl::Set points(host, 10);
  pl::Dat<double> x(points);
  pl::Global<double> factor(host, 2.0);
  auto h = scale_kernel();
  pl::par_loop(h, points, x(pl::RW), factor(pl::READ));
  pl::par_loop(h, points, pl::range{3, 3}, x(pl::RW), factor(pl::READ));
  CHECK(h.launches() == 2);
  CHECK(h.compiles() == 0);
}

TEST_CASE("the bytes a loop declares: values once for READ and WRITE, twice otherwise, and map entries",
          "[cache][stats]") {
  pl::Runtime host = pl::Runtime::open(pl::backend_kind::host);
  pl::Set cells(host, 10), edges(host, 20);
  std::vector<pl::index_t> edge_cells(40);
  for (std::size_t i = 0; i < edge_cells.size(); ++i) edge_cells[i] = static_cast<pl::index_t>(i % 10);
  pl::Map e2c(edges, cells, 2, edge_cells);
  pl::Dat<double, 4> q(cells);
  pl::Dat<float, 3> w(edges);
  pl::Dat<std::int32_t> flag(edges);
  pl::Global<double> total(host, 0.0);
  const pl::range r{5, 15};
  const auto declared = [](pl::range over, const auto&... args) {
    const std::array views{pl::detail::view_of(args)...};
    return pl::detail::declared_bytes(over, views);
  };
  CHECK(declared(r, w(pl::READ)) == 10 * 3 * 4);
  CHECK(declared(r, w(pl::WRITE)) == 10 * 3 * 4);
  CHECK(declared(r, w(pl::RW)) == 10 * 3 * 4 * 2);
  CHECK(declared(r, q(pl::INC, e2c, 1)) == 10 * (4 * 8 * 2 + 4));
  CHECK(declared(r, q(pl::READ, e2c)) == 10 * 2 * (4 * 8 + 4));
  CHECK(declared(r, flag(pl::MAX), total(pl::INC)) == 10 * 4 * 2);
  CHECK(declared(pl::range{0, 0}, w(pl::RW)) == 0);
}

TEST_CASE("the report: totals, then one row per kernel name in order of appearance", "[cache][stats]") {
  auto made = [](const char* name, std::uint64_t compiles, std::uint64_t disk_hits, std::uint64_t memory_hits,
                 std::uint64_t run_ns, std::uint64_t bytes) {
    auto k = std::make_shared<pl::detail::kernel_stats>(name);
    k->compiles = compiles;
    k->disk_hits = disk_hits;
    k->memory_hits = memory_hits;
    k->launches = compiles + disk_hits + memory_hits;
    k->compile_ns = compiles * 250'000'000;
    k->load_ns = disk_hits * 2'000'000;
    k->run_ns = run_ns;
    k->bytes = bytes;
    return std::shared_ptr<const pl::detail::kernel_stats>(k);
  };
  // Two kernels named res_calc (made twice, say) are one row.
  const std::string text = pl::detail::stats_text({made("res_calc", 1, 0, 99, 2'000'000'000, 6'000'000'000),
                                                   made("update", 0, 1, 9, 500'000'000, 1'000'000'000),
                                                   made("res_calc", 0, 1, 49, 1'000'000'000, 3'000'000'000)});
  const std::string expected =
      "parloop stats: compiled=1 disk_hits=2 memory_hits=157 launches=160\n"
      "  kernel        calls     time (s)  compile (s)     load (s)       GB/s\n"
      "  res_calc        150     3.000000     0.250000     0.002000       3.00\n"
      "  update           10     0.500000     0.000000     0.002000       2.00\n";
  CHECK(text == expected);
  CHECK(pl::detail::stats_text({}) ==
        "parloop stats: compiled=0 disk_hits=0 memory_hits=0 launches=0\n"
        "  kernel      calls     time (s)  compile (s)     load (s)       GB/s\n");
}

}  // namespace test_kernel_cache
