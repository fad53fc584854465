// SPDX-License-Identifier: MIT
// The data model: runtime selection, sets, maps, dats, globals, validity and transfers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <parloop/core/any_array.hpp>
#include <parloop/core/local_ranks.hpp>
#include <parloop/core/map_collisions.hpp>
#include <parloop/core/thread_count.hpp>
#include <parloop/parloop.hpp>

#include "fake_backend.hpp"
#include "scoped_env.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_core {

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;

TEST_CASE("Runtime chooses the backend from PARLOOP_BACKEND", "[core][runtime]") {
  SECTION("unset: the best available backend") {
    scoped_env env("PARLOOP_BACKEND", nullptr);
    // CUDA where it is available, else OpenCL on a GPU, else the threads backend: an OpenCL CPU
    // device (PoCL) comes after threads, and the host last.
    const std::vector<pl::backend_status> all = pl::backends();
    REQUIRE(all.size() == 4);
    CHECK(all[0].kind == pl::backend_kind::cuda);
    CHECK(all[3].kind == pl::backend_kind::host);
    const auto at = [&](pl::backend_kind kind) {
      return std::find_if(all.begin(), all.end(), [&](const pl::backend_status& s) { return s.kind == kind; });
    };
    const auto opencl = at(pl::backend_kind::opencl), threads = at(pl::backend_kind::threads);
    REQUIRE(threads->available);
    CHECK((opencl < threads) == (opencl->available && !opencl->cpu_device));
    const pl::backend_kind best = all[0].available                           ? pl::backend_kind::cuda
                                  : opencl->available && !opencl->cpu_device ? pl::backend_kind::opencl
                                                                             : pl::backend_kind::threads;
    CHECK(pl::Runtime::open().kind() == best);
  }
  SECTION("threads: PARLOOP_THREADS, else OMP_NUM_THREADS, else the CPUs shared among a node's ranks") {
    scoped_env backend("PARLOOP_BACKEND", "threads");
    scoped_env omp("OMP_NUM_THREADS", nullptr);
    {
      scoped_env threads("PARLOOP_THREADS", "3");
      const pl::Runtime rt = pl::Runtime::open();
      CHECK(rt.kind() == pl::backend_kind::threads);
      CHECK(rt.device_name() == "3 threads");
    }
    {
      scoped_env threads("PARLOOP_THREADS", nullptr);
      scoped_env omp_list("OMP_NUM_THREADS", "5,2");
      CHECK(pl::Runtime::open().device_name() == "5 threads");
    }
    scoped_env ompi("OMPI_COMM_WORLD_LOCAL_SIZE", nullptr);
    const int usable = pl::detail::usable_cpus(), machine = pl::detail::machine_cpus();
    const std::string by_default = std::to_string(pl::detail::cpus_for_rank(usable, machine, 1)) + " threads";
    {
      scoped_env threads("PARLOOP_THREADS", nullptr);
      CHECK(pl::Runtime::open().device_name() == by_default);
      scoped_env ranks("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
      CHECK(pl::Runtime::open().device_name() ==
            std::to_string(pl::detail::cpus_for_rank(usable, machine, 2)) + " threads");
    }
    for (const char* bad : {"0", "-2", "many", "3x", "5000", " 2", "+2", "2 "}) {
      scoped_env threads("PARLOOP_THREADS", bad);
      CHECK_THROWS_WITH(pl::Runtime::open(), Contains(std::string("PARLOOP_THREADS is '") + bad +
                                                      "': use a number of threads from 1 to 4096"));
    }
    // OpenMP's variable, set for another program: a value that is no count leaves the default.
    scoped_env threads("PARLOOP_THREADS", nullptr);
    for (const char* bad : {",4", "abc", "0", "99999"}) {
      scoped_env omp_bad("OMP_NUM_THREADS", bad);
      CHECK(pl::Runtime::open().device_name() == by_default);
    }
  }
  SECTION("a rank's threads: its own CPUs where the launcher placed it, the node's shared where not") {
    // A mask of 8 of the machine's 32 CPUs (srun --cpus-per-task=8): all 8, whatever the ranks.
    CHECK(pl::detail::cpus_for_rank(8, 32, 4) == 8);
    CHECK(pl::detail::cpus_for_rank(16, 64, 4) == 16);
    // The whole machine: shared among the node's ranks, one thread at least.
    CHECK(pl::detail::cpus_for_rank(32, 32, 4) == 8);
    CHECK(pl::detail::cpus_for_rank(2, 2, 4) == 1);
    CHECK(pl::detail::cpus_for_rank(32, 32, 1) == 32);
    CHECK(pl::detail::cpus_in_list("0-3,8,10-11\n") == 7);
    CHECK(pl::detail::cpus_in_list("5") == 1);
    for (const char* bad : {"", "\n", "3-1", "a-b", "0-", "1,,2"}) CHECK_FALSE(pl::detail::cpus_in_list(bad));
    CHECK(pl::detail::machine_cpus() >= pl::detail::usable_cpus());
    // The ranks on this node, as each launcher says it.
    scoped_env ompi("OMPI_COMM_WORLD_LOCAL_SIZE", nullptr), mpich("MPI_LOCALNRANKS", nullptr),
        pmix("PMIX_LOCAL_SIZE", nullptr), slurm("SLURM_NTASKS_PER_NODE", nullptr), pmi("PMI_LOCAL_SIZE", nullptr),
        mv2("MV2_COMM_WORLD_LOCAL_SIZE", nullptr), tasks("SLURM_TASKS_PER_NODE", nullptr),
        node("SLURM_NODEID", nullptr);
    CHECK(pl::detail::local_rank_count() == 1);
    {
      scoped_env mvapich("MV2_COMM_WORLD_LOCAL_SIZE", "3");
      CHECK(pl::detail::local_rank_count() == 3);
    }
    scoped_env per_node("SLURM_TASKS_PER_NODE", "2(x3),1");
    for (const auto& [id, count] : {std::pair{"0", 2}, {"2", 2}, {"3", 1}}) {
      scoped_env on("SLURM_NODEID", id);
      CHECK(pl::detail::local_rank_count() == count);
    }
    CHECK(pl::detail::slurm_tasks_on("2(x3),1", 4) == -1);
    CHECK(pl::detail::slurm_tasks_on("4(x2", 0) == -1);
    CHECK(pl::detail::slurm_tasks_on("16", 0) == 16);
  }
  SECTION("host") {
    scoped_env env("PARLOOP_BACKEND", "host");
    CHECK(pl::Runtime::open().kind() == pl::backend_kind::host);
    CHECK(pl::Runtime::open().name() == "host");
  }
  SECTION("a backend that is not built says so") {
#if !PARLOOP_TEST_CUDA
    scoped_env env("PARLOOP_BACKEND", "cuda");
    CHECK_THROWS_WITH(pl::Runtime::open(), Contains("backend 'cuda' is not available") && Contains("not built"));
#elif !PARLOOP_TEST_OPENCL
    scoped_env env("PARLOOP_BACKEND", "opencl");
    CHECK_THROWS_WITH(pl::Runtime::open(), Contains("backend 'opencl' is not available") && Contains("not built"));
#else
    // Both are built into this program: the message is what either would say.
    CHECK(pl::detail::not_built(pl::backend_kind::cuda) ==
          "the cuda backend is not built into this program (link parloop::cuda)");
#endif
  }
  SECTION("a backend opens when it is available, and says why when it is not") {
    for (const auto& s : pl::backends()) {
      if (s.available) {
        const pl::Runtime rt = pl::Runtime::open(s.kind);
        CHECK(rt.kind() == s.kind);
        CHECK_FALSE(rt.device_name().empty());
      } else {
        CHECK_THROWS_WITH(pl::Runtime::open(s.kind), Contains(s.reason));
      }
    }
  }
  SECTION("an unknown name lists the valid ones") {
    scoped_env env("PARLOOP_BACKEND", "vulkan");
    CHECK_THROWS_WITH(pl::Runtime::open(), Contains("PARLOOP_BACKEND is 'vulkan': use host (") &&
                                               Contains("threads (") && Contains("opencl (") && Contains("or cuda ("));
  }
  SECTION("every backend has a reason when unavailable") {
    for (const auto& s : pl::backends()) CHECK((s.available || !s.reason.empty()));
  }
}

TEST_CASE("settings: every variable read into one struct when a runtime opens, or set by the program",
          "[core][runtime][settings]") {
  scoped_env backend("PARLOOP_BACKEND", "threads"), threads("PARLOOP_THREADS", "3"), pin("PARLOOP_THREADS_PIN", "1"),
      device("PARLOOP_DEVICE", "gpu"), opencl("PARLOOP_OPENCL_DEVICE", nullptr), cuda("PARLOOP_CUDA_DEVICE", "1"),
      conflicts("PARLOOP_CONFLICTS", "blocks"), layout("PARLOOP_DAT_LAYOUT", "aos"), tune("PARLOOP_AUTOTUNE", "1"),
      traces("PARLOOP_CHECK_TRACES", "0"), indices("PARLOOP_CHECK_INDICES", "0"), fast("PARLOOP_FAST_MATH", "1"),
      mpi("PARLOOP_MPI_CHECK", "1"), cache("PARLOOP_CACHE", "read-only"), dir("PARLOOP_CACHE_DIR", "/tmp/pl-cache"),
      max("PARLOOP_CACHE_MAX_MB", "5"), dump("PARLOOP_DUMP_SOURCE", "/tmp/pl-dump"), log("PARLOOP_LOG", "off"),
      stats("PARLOOP_STATS", "0"), kernels("PARLOOP_OP2_KERNELS", "/a::/b/c"), renumber("PARLOOP_OP2_RENUMBER", "0");
  const pl::settings s = pl::settings::from_environment();
  CHECK(s.backend == pl::backend_kind::threads);
  CHECK(s.threads == 3);
  CHECK(s.threads_pin);
  CHECK(s.device_for(pl::backend_kind::opencl) == "gpu");
  CHECK(s.device_for(pl::backend_kind::cuda) == "1");
  CHECK_FALSE(s.device_named_for(pl::backend_kind::opencl));
  CHECK(s.device_named_for(pl::backend_kind::cuda));
  CHECK(s.conflicts == pl::conflicts::blocks);
  CHECK(s.dat_layout == pl::dat_layout::aos);
  CHECK(s.autotune);
  CHECK(s.check_traces == pl::trace_checks::off);
  CHECK_FALSE(s.check_indices);
  CHECK(s.fast_math);
  CHECK(s.mpi_check);
  CHECK(s.cache == pl::cache_mode::read_only);
  CHECK(s.cache_dir == "/tmp/pl-cache");
  CHECK(s.cache_max_bytes == std::uint64_t{5} << 20);
  CHECK(s.dump_source == "/tmp/pl-dump");
  CHECK_FALSE(s.log);
  CHECK_FALSE(s.stats);
  CHECK(s.op2_kernels == std::vector<std::filesystem::path>{"/a", "/b/c"});
  CHECK_FALSE(s.op2_renumber);

  SECTION("a runtime keeps what it opened with; the environment is not read again") {
    const pl::Runtime rt = pl::Runtime::open();
    CHECK(rt.device_name() == "3 threads");
    CHECK(rt.autotunes());
    CHECK(rt.trace_checks() == pl::trace_checks::off);
    scoped_env later("PARLOOP_CHECK_TRACES", "1"), more("PARLOOP_THREADS", "2");
    CHECK(rt.settings().threads == 3);
    CHECK(rt.settings().check_traces == pl::trace_checks::off);
  }
  SECTION("a program sets them without the environment") {
    pl::settings mine = s;
    mine.backend = pl::backend_kind::threads;
    mine.threads = 2;
    mine.autotune = false;
    mine.check_traces = pl::trace_checks::every_call;
    const pl::Runtime rt = pl::Runtime::open(mine);
    CHECK(rt.device_name() == "2 threads");
    CHECK_FALSE(rt.autotunes());
    CHECK(rt.trace_checks() == pl::trace_checks::every_call);
    // A device backend takes its defaults from them too: a fake device's.
    mine.conflicts.reset();
    mine.dat_layout = pl::dat_layout::soa;
    mine.cache = pl::cache_mode::off;
    const pl::Runtime fake =
        pl::detail::runtime_on(std::make_shared<parloop_test::fake_backend>(pl::detail::cpu_defaults, mine));
    CHECK(fake.default_conflicts() == pl::conflicts::colors);
    CHECK(fake.dat_layout() == pl::dat_layout::soa);
    CHECK(fake.trace_checks() == pl::trace_checks::every_call);
    CHECK_FALSE(static_cast<const pl::detail::device_backend&>(*fake.state()->backend).codegen_options().check_indices);
    CHECK(static_cast<const pl::detail::device_backend&>(*fake.state()->backend).disk() == nullptr);
  }
  SECTION("one rule for every value: a variable's own words or a plain whole number; else an error naming it") {
    const std::vector<std::pair<const char*, const char*>> refused{
        {"PARLOOP_BACKEND", "gpu"},      {"PARLOOP_THREADS", "2 "},      {"PARLOOP_THREADS", "+2"},
        {"PARLOOP_THREADS", " 2"},       {"PARLOOP_THREADS_PIN", "yes"}, {"PARLOOP_CONFLICTS", "locks"},
        {"PARLOOP_DAT_LAYOUT", "SOA"},   {"PARLOOP_AUTOTUNE", "true"},   {"PARLOOP_CHECK_TRACES", "2"},
        {"PARLOOP_CHECK_INDICES", "on"}, {"PARLOOP_FAST_MATH", "1 "},    {"PARLOOP_MPI_CHECK", "y"},
        {"PARLOOP_CACHE", "yes"},        {"PARLOOP_CACHE_MAX_MB", "0"},  {"PARLOOP_CACHE_MAX_MB", "+5"},
        {"PARLOOP_LOG", "debug"},        {"PARLOOP_STATS", "2"},         {"PARLOOP_OP2_RENUMBER", "no"}};
    for (const auto& [name, value] : refused) {
      INFO(name << "=" << value);
      scoped_env bad(name, value);
      try {
        (void)pl::settings::from_environment();
        FAIL("taken");
      } catch (const pl::argument_error& e) {
        const std::string what = e.what();
        CHECK((what.find(std::string(name) + " is '" + value + "'") != std::string::npos ||
               what.find(std::string(name) + "='" + value + "'") != std::string::npos));
      }
      CHECK_THROWS_AS(pl::Runtime::open(pl::backend_kind::host), pl::argument_error);
    }
  }
}

TEST_CASE("Set sizes and identity", "[core][set]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set a(rt, 10, "cells");
  const pl::Set b(rt, 10);
  const pl::Set a2 = a;
  CHECK(a.size() == 10);
  CHECK(a.name() == "cells");
  CHECK(a == a2);
  CHECK_FALSE(a == b);
  CHECK(b.name().rfind("set#", 0) == 0);
  CHECK_THROWS_WITH(pl::Set(rt, -1, "bad"), Contains("set 'bad' has negative size -1"));
  CHECK_NOTHROW(pl::Set(rt, 0));
}

TEST_CASE("Map validates its values at construction", "[core][map]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set edges(rt, 3, "edges"), cells(rt, 4, "cells");

  const std::vector<pl::index_t> good = {0, 1, 1, 2, 2, 3};
  const pl::Map m(edges, cells, 2, good, "e2c");
  CHECK(m.arity() == 2);
  CHECK(m.from() == edges);
  CHECK(m.to() == cells);
  CHECK(std::vector<pl::index_t>(m.values().begin(), m.values().end()) == good);

  const std::vector<pl::index_t> too_big = {0, 1, 1, 4, 2, 3};
  CHECK_THROWS_AS(pl::Map(edges, cells, 2, too_big, "e2c"), pl::data_error);
  CHECK_THROWS_WITH(pl::Map(edges, cells, 2, too_big, "e2c"),
                    Contains("entry 3 (element 1, slot 1) is 4, outside target set 'cells' of size 4"));
  const std::vector<pl::index_t> negative = {0, 1, -1, 2, 2, 3};
  CHECK_THROWS_WITH(pl::Map(edges, cells, 2, negative, "e2c"), Contains("entry 2 (element 1, slot 0) is -1"));
  CHECK_THROWS_WITH(pl::Map(edges, cells, 2, std::vector<pl::index_t>{0, 1}, "e2c"),
                    Contains("expected 6 values (3 elements of 'edges' x arity 2), got 2"));
  CHECK_THROWS_WITH(pl::Map(edges, cells, 0, std::vector<pl::index_t>{}, "e2c"), Contains("arity must be at least 1"));

  const pl::Runtime other = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set foreign(other, 4, "foreign");
  CHECK_THROWS_WITH(pl::Map(edges, foreign, 2, good), Contains("different runtimes"));
}

// The marking pass, over a vector of every target, as the reference.
std::optional<pl::detail::collision> marked_collision(std::span<const pl::index_t> targets, int arity, int slot,
                                                      std::span<const pl::index_t> elements, bool layered) {
  std::vector<pl::index_t> seen(1000, -1);
  for (const pl::index_t e : elements) {
    for (int j = slot < 0 ? 0 : slot; j <= (slot < 0 ? arity - 1 : slot); ++j) {
      const pl::index_t t = targets[std::size_t(e) * std::size_t(arity) + std::size_t(j)];
      if (seen[std::size_t(t)] >= 0 && !(layered && seen[std::size_t(t)] == e)) {
        return pl::detail::collision{seen[std::size_t(t)], e, t};
      }
      seen[std::size_t(t)] = e;
    }
  }
  return std::nullopt;
}

TEST_CASE("a map's collision checks find the first meeting in the loop's order, at the loop's cost, and keep it",
          "[core][map]") {
  using pl::detail::collision_checks;
  std::mt19937 rng(17);
  const int rows = 400, arity = 3;
  for (int trial = 0; trial < 200; ++trial) {
    // Targets among few (they meet) or many (they rarely do); a run of rows or a sparse subset.
    const int targets = trial % 2 == 0 ? 1000 : 40 + trial;
    std::vector<pl::index_t> values(std::size_t(rows) * arity);
    for (pl::index_t& v : values) v = pl::index_t(rng() % std::uint32_t(targets));
    std::vector<pl::index_t> elements;
    for (pl::index_t e = 0; e < rows; ++e) {
      if (rng() % 8 == 0) elements.push_back(e);
    }
    const int slot = int(rng() % (arity + 1)) - 1;
    const bool layered = trial % 3 == 0;
    // A target count far above the targets used takes the sorted pass; the one used, the marking one.
    for (const pl::index_t count : {pl::index_t(1000), pl::index_t(1000000)}) {
      INFO("trial " << trial << ", target count " << count);
      collision_checks checks(arity);
      const pl::detail::target_rows m{values, arity, rows, count, layered};
      const auto want = marked_collision(values, arity, slot, elements, layered);
      const auto got = checks.first_collision(m, slot, {0, pl::index_t(elements.size()), elements, 7});
      REQUIRE(got.has_value() == want.has_value());
      if (want) {
        CHECK(got->first == want->first);
        CHECK(got->second == want->second);
        CHECK(got->target == want->target);
      }
    }
  }
  // A subset's answer is kept under its id, and forgotten when the map is renumbered.
  const std::vector<pl::index_t> meeting = {0, 1, 2, 1, 3, 4};  // rows 0 and 1 both reach 1 at once
  const std::vector<pl::index_t> apart = {0, 1, 2, 3, 4, 5};
  const std::vector<pl::index_t> both = {0, 1};
  collision_checks checks(2);
  const pl::detail::target_rows before{meeting, 2, 3, 1000, false};
  REQUIRE(checks.first_collision(before, collision_checks::whole_map, {0, 2, both, 9}).has_value());
  const pl::detail::target_rows after{apart, 2, 3, 1000, false};
  CHECK(checks.first_collision(after, collision_checks::whole_map, {0, 2, both, 9}).has_value());
  checks.forget_ranges();
  CHECK_FALSE(checks.first_collision(after, collision_checks::whole_map, {0, 2, both, 9}).has_value());
}

TEST_CASE("Dat construction, host views and sizes", "[core][dat]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 3, "cells");

  const pl::Dat<double, 2> zero(cells, "zero");
  CHECK(zero.size() == 6);
  for (double v : zero.host()) CHECK(v == 0.0);

  const std::vector<float> init = {1, 2, 3, 4, 5, 6};
  pl::Dat<float, 2> d(cells, init, "d");
  CHECK(std::vector<float>(d.host().begin(), d.host().end()) == init);
  d.host_view(pl::WRITE)[5] = 60.0f;
  CHECK(d.host()[5] == 60.0f);

  CHECK_THROWS_AS((pl::Dat<float, 2>(cells, std::vector<float>{1, 2, 3}, "short")), pl::data_error);
  CHECK_THROWS_WITH((pl::Dat<std::int64_t, 3>(cells, std::vector<std::int64_t>(10), "long")),
                    Contains("dat 'long': expected 9 values (3 elements of 'cells' x dim 3), got 10"));

  pl::Dat<float, 2> alias = d;
  alias.host_view(pl::RW)[0] = -1.0f;
  CHECK(d.host()[0] == -1.0f);
}

TEST_CASE("Global values", "[core][global]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  pl::Global<double> g(rt, 2.5, "g");
  CHECK(g.value() == 2.5);
  g.set_value(-1.0);
  CHECK(g.value() == -1.0);
  pl::Global<std::int32_t, 3> v(rt, {1, 2, 3});
  CHECK(v.values() == std::array<std::int32_t, 3>{1, 2, 3});
  v.set_values({4, 5, 6});
  CHECK(v.values()[2] == 6);
}

TEST_CASE("dats and globals of a type known at run time only", "[core][dat]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 3, "cells");

  const std::vector<std::int64_t> values = {7, -8, 9, 10, 11, -(std::int64_t{1} << 40)};
  const pl::detail::any_array d = pl::detail::make_any_dat(cells, pl::scalar_type::int64,
                                                           reinterpret_cast<const std::byte*>(values.data()), "d", 2);
  REQUIRE(d.values->host_bytes() != nullptr);
  std::vector<std::int64_t> held(values.size());
  std::memcpy(held.data(), d.values->host_bytes(), held.size() * sizeof(std::int64_t));
  CHECK(held == values);
  CHECK(d.owner->name == "d");
  CHECK(d.owner->set.has_value());

  // Without values: zeros, as many as the set's elements times the dimension.
  const pl::detail::any_array z = pl::detail::make_any_dat(cells, pl::scalar_type::float32, nullptr, "z", 3);
  std::vector<float> zeros(9, -1.0f);
  std::memcpy(zeros.data(), z.values->host_bytes(), zeros.size() * sizeof(float));
  CHECK(zeros == std::vector<float>(9, 0.0f));

  const pl::detail::any_array g = pl::detail::make_any_global(rt, pl::scalar_type::float64, "g", 2);
  double two[2] = {-1.0, -1.0};
  std::memcpy(two, g.values->host_bytes(), sizeof two);
  CHECK(two[0] == 0.0);
  CHECK(two[1] == 0.0);
  CHECK_FALSE(g.owner->set.has_value());

  CHECK_THROWS_WITH(pl::detail::make_any_dat(cells, pl::scalar_type::boolean, nullptr, "flags", 1),
                    Contains("dat 'flags': parloop's dats and globals hold double, float, int or long, not bool"));
  CHECK_THROWS_AS(pl::detail::make_any_global(rt, pl::scalar_type::boolean, "flag", 1), pl::data_error);
}

TEST_CASE("A device keeps a dat of several components by components, or as the host does", "[core][validity]") {
  std::vector<float> values(37 * 3);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const auto device_values = [](const pl::detail::mirrored_array& array) {
    const auto& bytes = static_cast<const parloop_test::fake_buffer&>(*array.buffer()).bytes;
    std::vector<float> out(bytes.size() / sizeof(float));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  };
  SECTION("soa, the default") {
    auto device = std::make_shared<parloop_test::fake_backend>();
    const pl::Runtime rt = parloop_test::runtime_on(device);
    CHECK(rt.dat_layout() == pl::dat_layout::soa);
    const pl::Set cells(rt, 37);
    pl::Dat<float, 3> d(cells, values);
    pl::Dat<float> one(cells);
    auto& array = d.state().array;
    CHECK(array.component_stride() == 64);
    CHECK(one.state().array.component_stride() == 0);  // one component: nothing to transpose
    array.ensure_device(*device);
    const std::vector<float> on_device = device_values(array);
    REQUIRE(on_device.size() == 3 * 64);
    for (std::size_t e = 0; e < 37; ++e) {
      for (std::size_t k = 0; k < 3; ++k) CHECK(on_device[k * 64 + e] == values[e * 3 + k]);
    }
    CHECK(on_device[37] == 0.0f);  // padding
    // Back to the host, transposed again.
    auto& bytes =
        static_cast<parloop_test::fake_buffer&>(*const_cast<pl::detail::device_buffer*>(array.buffer())).bytes;
    const float changed = -2.0f;
    std::memcpy(bytes.data() + (2 * 64 + 5) * sizeof(float), &changed, sizeof changed);
    array.device_written();
    CHECK(d.host()[5 * 3 + 2] == -2.0f);
    CHECK(d.host()[5 * 3 + 1] == values[5 * 3 + 1]);
    CHECK(rt.transfers().to_host_bytes == 3 * 64 * sizeof(float));
  }
  SECTION("aos") {
    scoped_env layout("PARLOOP_DAT_LAYOUT", "aos");
    auto device = std::make_shared<parloop_test::fake_backend>();
    const pl::Runtime rt = parloop_test::runtime_on(device);
    CHECK(rt.dat_layout() == pl::dat_layout::aos);
    const pl::Set cells(rt, 37);
    pl::Dat<float, 3> d(cells, values);
    d.state().array.ensure_device(*device);
    CHECK(d.state().array.component_stride() == 0);
    CHECK(device_values(d.state().array) == values);
  }
  SECTION("a bad PARLOOP_DAT_LAYOUT") {
    scoped_env layout("PARLOOP_DAT_LAYOUT", "columns");
    CHECK_THROWS_WITH(std::make_shared<parloop_test::fake_backend>(),
                      Contains("PARLOOP_DAT_LAYOUT is 'columns': use soa") && Contains("or aos"));
  }
  CHECK(pl::Runtime::open(pl::backend_kind::host).dat_layout() == pl::dat_layout::aos);
}

TEST_CASE("a CPU device keeps dats by elements and colours combining writes, unless the environment says otherwise",
          "[core][layout]") {
  const scoped_env unset_layout("PARLOOP_DAT_LAYOUT", nullptr), unset_conflicts("PARLOOP_CONFLICTS", nullptr);
  {
    const pl::Runtime gpu = parloop_test::runtime_on(std::make_shared<parloop_test::fake_backend>());
    CHECK(gpu.dat_layout() == pl::dat_layout::soa);
    CHECK(gpu.default_conflicts() == pl::conflicts::atomics);
    const pl::Runtime cpu =
        parloop_test::runtime_on(std::make_shared<parloop_test::fake_backend>(pl::detail::cpu_defaults));
    CHECK(cpu.dat_layout() == pl::dat_layout::aos);
    CHECK(cpu.default_conflicts() == pl::conflicts::colors);
  }
  const scoped_env soa("PARLOOP_DAT_LAYOUT", "soa"), blocks("PARLOOP_CONFLICTS", "blocks");
  const pl::Runtime told =
      parloop_test::runtime_on(std::make_shared<parloop_test::fake_backend>(pl::detail::cpu_defaults));
  CHECK(told.dat_layout() == pl::dat_layout::soa);
  CHECK(told.default_conflicts() == pl::conflicts::blocks);
}

TEST_CASE("Validity mask: copies move only when a copy is stale", "[core][validity]") {
  auto device = std::make_shared<parloop_test::fake_backend>();
  const pl::Runtime rt = parloop_test::runtime_on(device);
  const pl::Set cells(rt, 100);
  pl::Dat<double, 3> d(cells, std::vector<double>(300, 1.0));
  auto& array = d.state().array;
  const auto& t = rt.transfers();
  // Kept by components on the device: three components of 100 elements, 128 apart.
  const std::uint64_t bytes = 3 * 128 * sizeof(double);

  CHECK(array.valid() == pl::validity::host);
  CHECK(t.to_device == 0);

  // A loop reading it: one upload, and again none while the device copy stays current.
  array.ensure_device(*device);
  array.ensure_device(*device);
  CHECK(array.valid() == pl::validity::both);
  CHECK(t.to_device == 1);
  CHECK(t.to_device_bytes == bytes);
  CHECK(device->copies.allocations == 1);

  // Host reads of a current host copy move nothing.
  CHECK(d.host()[0] == 1.0);
  CHECK(t.to_host == 0);

  // A loop writing it on the device: the host copy is stale, read back once.
  std::memset(
      static_cast<parloop_test::fake_buffer&>(*const_cast<pl::detail::device_buffer*>(array.buffer())).bytes.data(), 0,
      bytes);
  array.device_written();
  CHECK(array.valid() == pl::validity::device);
  CHECK(d.host()[0] == 0.0);
  CHECK(d.host()[299] == 0.0);
  CHECK(t.to_host == 1);
  CHECK(t.to_host_bytes == bytes);
  CHECK(array.valid() == pl::validity::both);

  // A host write makes the device copy stale: the next loop uploads again, once.
  d.host_view(pl::WRITE)[7] = 7.0;
  CHECK(array.valid() == pl::validity::host);
  array.ensure_device(*device);
  array.ensure_device(*device);
  CHECK(t.to_device == 2);
  CHECK(device->copies.allocations == 1);

  // A host write over a device-only copy first fetches it, so a partial write loses nothing.
  array.device_written();
  d.host_view(pl::RW)[8] = 8.0;
  CHECK(t.to_host == 2);
  CHECK(d.host()[7] == 7.0);

  // Globals follow the same rules.
  pl::Global<double> g(rt, 3.0);
  g.state().array.ensure_device(*device);
  g.state().array.device_written();
  CHECK(g.value() == 3.0);
  CHECK(t.to_device == 3);
  CHECK(t.to_host == 3);
  CHECK(g.value() == 3.0);
  CHECK(t.to_host == 3);
}

TEST_CASE("validity is a bit mask", "[core][validity]") {
  using pl::validity;
  CHECK((validity::host | validity::device) == validity::both);
  CHECK(pl::has(validity::both, validity::host));
  CHECK(pl::has(validity::both, validity::device));
  CHECK_FALSE(pl::has(validity::host, validity::device));
  CHECK((validity::both & validity::device) == validity::device);
}

TEST_CASE("braced values are values, and a moved-from object is an error", "[core][api]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set cells(rt, 4, "cells"), edges(rt, 3, "edges");
  const pl::Dat<std::int32_t> ints(cells, {1, 2, 3, 4});
  CHECK(std::vector<std::int32_t>(ints.host().begin(), ints.host().end()) == std::vector<std::int32_t>{1, 2, 3, 4});
  CHECK(ints.name().rfind("dat#", 0) == 0);
  const pl::Dat<double> doubles(cells, {1, 2, 3, 4}, "doubles");
  CHECK(doubles.host()[3] == 4.0);
  CHECK_THROWS_WITH((pl::Dat<double>(cells, {1.0, 2.0})), Contains("expected 4 values"));
  const pl::Map e2c(edges, cells, 2, {0, 1, 1, 2, 2, 3});
  CHECK(e2c.values()[5] == 3);
  CHECK(e2c.name().rfind("map#", 0) == 0);

  pl::Dat<double> moved(cells);
  const pl::Dat<double> kept = std::move(moved);
  auto k = pl::kernel("touch", [](auto x) { x += 1.0; });
  CHECK_THROWS_WITH(pl::par_loop(k, cells, moved(pl::INC)), Contains("a Dat that was moved from is used"));
  pl::Map moved_map = e2c;
  const pl::Map kept_map = std::move(moved_map);
  CHECK_THROWS_WITH(pl::par_loop(k, edges, kept(pl::INC, moved_map, 0)), Contains("a Map that was moved from is used"));
  pl::Global<double> moved_global(rt, 1.0);
  const pl::Global<double> kept_global = std::move(moved_global);
  CHECK_THROWS_WITH(moved_global.value(), Contains("a Global that was moved from is used"));
  CHECK(kept_global.value() == 1.0);
  pl::Set moved_set(rt, 5, "moved");
  const pl::Set kept_set = std::move(moved_set);
  CHECK_THROWS_WITH(moved_set.size(), Contains("a Set that was moved from is used"));
  CHECK_THROWS_WITH(pl::par_loop(k, moved_set, kept(pl::INC)), Contains("a Set that was moved from is used"));
  CHECK(kept_set.size() == 5);
}

}  // namespace test_core
