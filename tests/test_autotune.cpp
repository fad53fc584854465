// SPDX-License-Identifier: MIT
// Autotuning (pl::autotune, PARLOOP_AUTOTUNE, Runtime::set_autotune) on the device under test:
// a tuned loop gives the host's answers, applied once per call however many candidates ran; it
// is tuned once per kernel, backend and size class of its range; its choice is kept in the disk
// cache with the winner's binary only, so that another program neither times nor compiles again;
// a candidate refused is passed over, and where all are the first error is thrown with the
// arrays as the call gave them; the candidates, and the choice's record.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include <parloop/exec/device/autotune.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "device_under_test.hpp"
#include "random_mesh.hpp"
#include "scoped_env.hpp"
#include "temporary_folder.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_autotune {

namespace pl = parloop;
using parloop_test::check_value;
using parloop_test::check_values;
using parloop_test::scoped_env;

namespace {

constexpr int n_cells = 613, n_edges = 2411;

// INC through a map (its candidates include colours and plans), a direct RW and a global INC:
// none gives the same values when applied twice.
auto tuned_kernel() {
  return pl::kernel("tuned", [](auto q, auto ra, auto rb, auto w, auto total) {
    ra[0] += q[0];
    rb[0] += q[0] * 2.0;
    rb[1] -= q[1];
    w[0] = w[0] * 0.5 + q[1];
    total += q[0] * q[1];
  });
}

struct results {
  std::vector<double> r, w;
  double total;
};

// The mesh and data of every run (the generators draw new values at each call).
const std::vector<pl::index_t> e2c = parloop_test::random_map(n_edges, n_cells, 2);
const std::vector<double> q0 = parloop_test::random_values<double>(n_edges * 2);
const std::vector<double> w0 = parloop_test::random_values<double>(n_edges);

// Two calls of the tuned kernel on `rt`; `how` runs one call.
template <class K, class How>
results two_calls(pl::Runtime rt, const K& k, How&& how) {
  const pl::Set cells(rt, n_cells), edges(rt, n_edges);
  const pl::Map map(edges, cells, 2, e2c);
  pl::Dat<double, 2> q(edges, q0), r(cells);
  pl::Dat<double> w(edges, w0);
  pl::Global<double> total(rt, 0.25);
  for (int call = 0; call < 2; ++call) {
    how(k, edges, q(pl::READ), r(pl::INC, map, 0), r(pl::INC, map, 1), w(pl::RW), total(pl::INC));
  }
  return {std::vector<double>(r.host().begin(), r.host().end()), std::vector<double>(w.host().begin(), w.host().end()),
          total.value()};
}

const auto plain = [](const auto& k, const pl::Set& s, const auto&... args) { pl::par_loop(k, s, args...); };
const auto autotuned = [](const auto& k, const pl::Set& s, const auto&... args) {
  pl::par_loop(k, s, pl::autotune{}, args...);
};

void check_same(const results& got, const results& want) {
  check_values<double>(got.r, want.r);
  check_values<double>(got.w, want.w);
  check_value(got.total, want.total);
}

}  // namespace

TEST_CASE("an autotuned loop gives the host's answers, once per call, and is tuned once", "[autotune]") {
  const scoped_env no_disk("PARLOOP_CACHE", "off");
  const results want = two_calls(pl::Runtime::open(pl::backend_kind::host), tuned_kernel(), plain);

  SECTION("asked for by the loop") {
    auto k = tuned_kernel();
    check_same(two_calls(parloop_test::device_runtime(), k, autotuned), want);
    CHECK(k.cache().tunings() == 1);
    // The host has nothing to choose: the tag is accepted, and nothing is timed.
    check_same(two_calls(pl::Runtime::open(pl::backend_kind::host), k, autotuned), want);
    CHECK(k.cache().tunings() == 1);
  }
  SECTION("asked for by the runtime: its loops that name no strategy and no conflicts") {
    auto k = tuned_kernel();
    pl::Runtime rt = parloop_test::device_runtime();
    CHECK_FALSE(rt.autotunes());
    rt.set_autotune(true);
    CHECK(rt.autotunes());
    check_same(two_calls(rt, k, plain), want);
    CHECK(k.cache().tunings() == 1);
    // A loop naming its strategy or conflicts runs as it says.
    auto named = tuned_kernel();
    pl::Runtime other = parloop_test::device_runtime();
    other.set_autotune(true);
    check_same(two_calls(other, named,
                         [](const auto& kk, const pl::Set& s, const auto&... args) {
                           pl::par_loop(kk, s, pl::split_n_across_workgroups{64}, args...);
                         }),
               want);
    check_same(two_calls(other, named,
                         [](const auto& kk, const pl::Set& s, const auto&... args) {
                           pl::par_loop(kk, s, pl::conflicts::colors, args...);
                         }),
               want);
    CHECK(named.cache().tunings() == 0);
  }
  SECTION("by PARLOOP_AUTOTUNE, read when the runtime opens") {
    {
      const scoped_env on("PARLOOP_AUTOTUNE", "1");
      CHECK(parloop_test::device_runtime().autotunes());
    }
    const scoped_env wrong("PARLOOP_AUTOTUNE", "yes");
    CHECK_THROWS_WITH(parloop_test::device_runtime(), Catch::Contains("PARLOOP_AUTOTUNE is 'yes': use 0"));
  }
}

TEST_CASE("an autotuned choice is kept in the disk cache: another program neither times nor compiles",
          "[autotune][disk]") {
  const parloop_test::temporary_folder folder;
  const scoped_env on("PARLOOP_CACHE", "on"), dir("PARLOOP_CACHE_DIR", folder.path.c_str());
  const results want = two_calls(pl::Runtime::open(pl::backend_kind::host), tuned_kernel(), plain);
  auto first = tuned_kernel();
  check_same(two_calls(parloop_test::device_runtime(), first, autotuned), want);
  CHECK(first.cache().tunings() == 1);
  CHECK(first.cache().compiles() > 1);
  // A kernel of its own, as another process would have: the choice and the winner's binary load.
  auto second = tuned_kernel();
  check_same(two_calls(parloop_test::device_runtime(), second, autotuned), want);
  CHECK(second.cache().tunings() == 0);
  CHECK(second.cache().compiles() == 0);
  CHECK(second.cache().disk_hits() == 1);
  // Only the winner's binary was kept, beside the choice: not every candidate's.
  std::size_t entries = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(folder.path)) {
    entries += f.path().extension() == ".plk" ? 1 : 0;
  }
  CHECK(entries == 2);
}

TEST_CASE("a choice is made per size class of the range, in memory and on disk alike", "[autotune][disk]") {
  const parloop_test::temporary_folder folder;
  const scoped_env on("PARLOOP_CACHE", "on"), dir("PARLOOP_CACHE_DIR", folder.path.c_str());
  namespace d = pl::detail;
  // Lengths within about a factor of four share a class; 16 and a million do not.
  CHECK(d::size_class(16) == d::size_class(31));
  CHECK(d::size_class(16) != d::size_class(1 << 20));
  CHECK(d::size_class(2411) == d::size_class(3000));
  CHECK(d::size_class(0) == 0);
  CHECK(d::size_class_lengths(d::size_class(2411)) == "2048 to 8191 elements");
  // A loop over n elements of a direct kernel, autotuned, against the host's values.
  const auto run = [](const auto& k, const pl::Runtime& rt, pl::index_t n) {
    const pl::Set s(rt, n);
    pl::Dat<double> x(s, parloop_test::random_values<double>(n));
    const std::vector<double> start(x.host().begin(), x.host().end());
    pl::par_loop(k, s, pl::autotune{}, x(pl::RW));
    const auto h = x.host();
    for (std::size_t i = 0; i < start.size(); ++i) REQUIRE(h[i] == start[i] * 0.5 + 1.0);
  };
  const auto halve = [] { return pl::kernel("halve", [](auto x) { x = x * 0.5 + 1.0; }); };
  const pl::Runtime rt = parloop_test::device_runtime();
  auto k = halve();
  run(k, rt, 16);
  CHECK(k.cache().tunings() == 1);
  // 16 elements do not choose for 2411: another class, tuned again.
  run(k, rt, 2411);
  CHECK(k.cache().tunings() == 2);
  // 3000 is 2411's class: its choice, from memory.
  run(k, rt, 3000);
  CHECK(k.cache().tunings() == 2);
  // Another program (a kernel of its own) over 3000 finds 2411's choice on disk.
  auto other = halve();
  run(other, parloop_test::device_runtime(), 3000);
  CHECK(other.cache().tunings() == 0);
  CHECK(other.cache().compiles() == 0);
}

TEST_CASE(
    "a candidate the loop cannot take is passed over; where every one fails, the first error is thrown and "
    "the arrays keep the call's values",
    "[autotune]") {
  const scoped_env no_disk("PARLOOP_CACHE", "off");
  const pl::Runtime host = pl::Runtime::open(pl::backend_kind::host), rt = parloop_test::device_runtime();
  // Through a map of arity 65, which a two-level plan cannot stage: those candidates are refused.
  const auto wide_sum = [](const pl::Runtime& on, const auto& k, const auto&... how) {
    const pl::Set from(on, 40), to(on, 100);
    std::vector<pl::index_t> wide(40 * 65);
    for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<pl::index_t>((i * 7) % 100);
    const pl::Map m(from, to, 65, wide);
    pl::Dat<double> r(to);
    pl::par_loop(k, from, how..., r(pl::INC, m));
    return std::vector<double>(r.host().begin(), r.host().end());
  };
  auto spread = pl::kernel("spread_wide", [](auto r) {
    for (int j = 0; j < 65; ++j) r[j][0] += 1.0;
  });
  const std::vector<double> want = wide_sum(host, spread);
  const std::vector<double> got = wide_sum(rt, spread, pl::autotune{});
  CHECK(got == want);  // sums of ones: exact in any order
  CHECK(spread.cache().tunings() == 1);

  // Every candidate runs, changes the arrays, and then finds element 3's index out of range.
  const pl::Set s(rt, 6), cells(rt, 4);
  const pl::Map to_cell(s, cells, 1, {0, 1, 2, 3, 0, 1});
  pl::Dat<double, 3> q(s, std::vector<double>(18, 1.5));
  pl::Dat<std::int32_t> which(s, {0, 1, 2, 5, 1, 2});
  pl::Dat<double> x(s, std::vector<double>{1, 2, 3, 4, 5, 6}), acc(cells, std::vector<double>{10, 20, 30, 40});
  auto faulty = pl::kernel("faulty", [](auto q, auto i, auto x, auto acc) {
    x = x * 2.0 + 1.0;
    acc += q[i];
  });
  CHECK_THROWS_WITH(
      pl::par_loop(faulty, s, pl::autotune{}, q(pl::READ), which(pl::READ), x(pl::RW), acc(pl::INC, to_cell, 0)),
      Catch::Contains("kernel 'faulty': argument 0 has 3 components; index 5 is out of range"));
  CHECK(faulty.cache().tunings() == 0);
  check_values<double>(x.host(), {1, 2, 3, 4, 5, 6});
  check_values<double>(acc.host(), {10, 20, 30, 40});
}

TEST_CASE("the candidates: each kernel once, colours and plans only where writes combine through maps", "[autotune]") {
  const pl::Runtime rt = parloop_test::device_runtime();
  const pl::detail::device_backend& device = *rt.state()->backend;
  const pl::Set cells(rt, n_cells), edges(rt, n_edges);
  const pl::Map map(edges, cells, 2, e2c);
  pl::Dat<double, 2> q(edges), r(cells);
  pl::Dat<double> w(edges);
  pl::Global<double> total(rt, 0.0);
  auto k = tuned_kernel();
  const auto through_map = pl::detail::launch_candidates(
      *k.traced(q(pl::READ), r(pl::INC, map, 0), r(pl::INC, map, 1), w(pl::RW), total(pl::INC)), device);
  auto direct = pl::kernel("direct", [](auto a, auto b) { b[0] = a[0] * 2.0; });
  const auto only_direct = pl::detail::launch_candidates(*direct.traced(q(pl::READ), w(pl::WRITE)), device);
  for (const auto* list : {&through_map, &only_direct}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      CHECK(std::count(list->begin(), list->end(), (*list)[i]) == 1);
    }
  }
  const auto count = [](const auto& list, pl::conflicts c) {
    return std::count_if(list.begin(), list.end(), [&](const pl::detail::loop_launch& l) { return l.writes == c; });
  };
  CHECK(count(through_map, pl::conflicts::colors) > 0);
  CHECK(count(through_map, pl::conflicts::blocks) > 0);
  CHECK(count(only_direct, pl::conflicts::atomics) == static_cast<long>(only_direct.size()));
  // The backend's defaults come first: the loop's launch where tuning changes nothing.
  CHECK(only_direct.front().launch ==
        pl::codegen::for_kernel(*direct.traced(q(pl::READ), w(pl::WRITE)), rt.default_strategy()));
}

TEST_CASE("a choice's record reads back as written; damaged ones are refused", "[autotune][disk]") {
  namespace d = pl::detail;
  for (const d::loop_launch& l : {d::loop_launch{pl::split_n_across_workgroups{512}, pl::conflicts::blocks},
                                  d::loop_launch{pl::grid_stride{256, 8}, pl::conflicts::atomics},
                                  d::loop_launch{pl::chunked{16, 256}, pl::conflicts::colors},
                                  d::loop_launch{pl::vectors_across_workgroups{128, 4}, pl::conflicts::atomics}}) {
    const std::optional<d::loop_launch> back = d::choice_from_bytes(d::choice_bytes(l));
    REQUIRE(back);
    CHECK(*back == l);
  }
  const std::vector<unsigned char> good =
      d::choice_bytes({pl::vectors_across_workgroups{128, 2}, pl::conflicts::atomics});
  auto damaged = good;
  damaged.pop_back();
  CHECK_FALSE(d::choice_from_bytes(damaged));
  damaged = good;
  damaged[0] = 4;  // no such strategy
  CHECK_FALSE(d::choice_from_bytes(damaged));
  damaged = good;
  damaged[1] = 3;  // no such conflicts
  CHECK_FALSE(d::choice_from_bytes(damaged));
  damaged = good;
  damaged[6] = 3;  // vectors of 3
  CHECK_FALSE(d::choice_from_bytes(damaged));
  damaged = good;
  damaged[5] = 0x80;  // a negative block
  CHECK_FALSE(d::choice_from_bytes(damaged));
}

}  // namespace test_autotune
