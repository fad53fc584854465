// SPDX-License-Identifier: MIT
// The CUDA backend where there may be no GPU: choosing a device by the environment (on made-up
// lists), listing them through the driver where there is one, the compile target and NVRTC's
// builds, and the reason CUDA is unavailable where there is no driver.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <parloop/backend/cuda/backend.hpp>
#include <parloop/backend/rebuild.hpp>
#include <parloop/cache/disk_cache.hpp>
#include <parloop/cache/disk_maintenance.hpp>
#include <parloop/parloop.hpp>

#include "compile_all.hpp"
#include "scoped_env.hpp"
#include "temporary_folder.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_cuda_device {

namespace pl = parloop;
namespace cu = parloop::backend::cuda;
using Catch::Matchers::Contains;
using parloop_test::scoped_env;

namespace {

cu::device made_up(int index, const std::string& name, int major, int minor) {
  return {index, index, name, major, minor, 132, 1024, 49152, std::size_t{141} << 30, 13000};
}

const std::vector<cu::device> two = {made_up(0, "NVIDIA H200", 9, 0), made_up(1, "NVIDIA GeForce RTX 4090", 8, 9)};

}  // namespace

TEST_CASE("a CUDA device is chosen by index or by part of its name", "[cuda][device]") {
  CHECK(cu::select_device(two, "", -1).name == "NVIDIA H200");
  CHECK(cu::select_device(two, "1", -1).name == "NVIDIA GeForce RTX 4090");
  CHECK(cu::select_device(two, "rtx", -1).index == 1);
  CHECK(cu::select_device(two, "h200", -1).arch() == "sm_90");
  CHECK(cu::select_device(two, "4090", -1).arch() == "sm_89");
  CHECK_THROWS_AS(cu::select_device(two, "7", -1), pl::backend_unavailable);
  CHECK_THROWS_WITH(cu::select_device(two, "7", -1),
                    Contains("CUDA: no device is numbered or named '7'; the devices are:") &&
                        Contains("0 NVIDIA H200 (sm_90, 132 SMs, 141 GiB)"));
  CHECK_THROWS_WITH(cu::select_device(two, "a100", -1),
                    Contains("no device is numbered or named 'a100'") && Contains("1 NVIDIA GeForce"));
  CHECK_THROWS_WITH(cu::select_device({}, "", -1), Contains("CUDA: the driver sees no device"));
  // Without a selector, MPI ranks on a node spread over its devices by local rank.
  CHECK(cu::select_device(two, "", 0).index == 0);
  CHECK(cu::select_device(two, "", 1).index == 1);
  CHECK(cu::select_device(two, "", 2).index == 0);
  CHECK(cu::select_device(two, "0", 1).index == 0);
}

TEST_CASE("the local rank comes from the MPI launcher's environment", "[cuda][device]") {
  const scoped_env none_ompi("OMPI_COMM_WORLD_LOCAL_RANK", nullptr), none_mpich("MPI_LOCALRANKID", nullptr),
      none_slurm("SLURM_LOCALID", nullptr), none_pmi("PMI_LOCAL_RANK", nullptr);
  CHECK(pl::exec::local_rank() == -1);
  {
    const scoped_env slurm("SLURM_LOCALID", "3");
    CHECK(pl::exec::local_rank() == 3);
    const scoped_env ompi("OMPI_COMM_WORLD_LOCAL_RANK", "1");
    CHECK(pl::exec::local_rank() == 1);
  }
  const scoped_env bad("OMPI_COMM_WORLD_LOCAL_RANK", "one");
  CHECK(pl::exec::local_rank() == -1);
}

TEST_CASE("the driver lists the devices, or says why it cannot", "[cuda][device]") {
  std::vector<cu::device> listed;
  try {
    listed = cu::devices();
  } catch (const pl::backend_unavailable& e) {
    // No driver on this machine (CI): the reason names what is missing, and so does every later call.
    CHECK_THAT(std::string(e.what()), Contains("libcuda.so.1"));
    CHECK_THROWS_WITH(cu::devices(), Contains("libcuda.so.1"));
    return;
  }
  for (const cu::device& d : listed) {
    INFO(d.describe());
    CHECK_FALSE(d.name.empty());
    CHECK(d.major >= 5);
    CHECK(d.arch() == "sm_" + std::to_string(d.major) + std::to_string(d.minor));
    CHECK(d.multiprocessors >= 1);
    CHECK(d.max_threads_per_block >= 256);
    CHECK(d.total_memory > (std::size_t{1} << 30));
    CHECK(d.driver_version >= 12000);
  }
  // Listed once: the same list again.
  CHECK(&cu::devices() == &cu::devices());
}

TEST_CASE("NVRTC compiles for the device's own architecture, else PTX for the newest it knows below",
          "[cuda][compile]") {
  const std::vector<int> known = {75, 80, 86, 89, 90, 100, 120};
  const cu::target h200 = cu::target_for(90, known, false);
  CHECK(h200.arch == 90);
  CHECK_FALSE(h200.ptx);
  CHECK(h200.format() == pl::cache::binary_format::cubin);
  CHECK(h200.options_text() == "--gpu-architecture=sm_90 --device-as-default-execution-space --std=c++17");
  // A device newer than this NVRTC: PTX of the newest architecture below it, for the driver.
  const cu::target newer = cu::target_for(130, known, true);
  CHECK(newer.arch == 120);
  CHECK(newer.ptx);
  CHECK(newer.format() == pl::cache::binary_format::ptx);
  CHECK(newer.options_text() ==
        "--gpu-architecture=compute_120 --device-as-default-execution-space --std=c++17 --use_fast_math");
  CHECK(cu::target_for(87, known, false).arch == 86);
  CHECK(cu::target_for(87, known, false).ptx);
  CHECK_THROWS_WITH(cu::target_for(70, known, false), Contains("NVRTC does not compile for sm_70") &&
                                                          Contains("the oldest architecture it knows is sm_75"));
}

TEST_CASE("NVRTC builds a generated kernel into a CUBIN or PTX, and a refused one names the compiler",
          "[cuda][compile]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set s(rt, 8);
  pl::Dat<double> x(s);
  auto twice = pl::kernel("twice", [](auto x) { x *= 2; });
  const auto ir = twice.traced(x(pl::RW));
  const auto source = pl::codegen::generate(*ir, pl::codegen::dialect_kind::cuda);
  // NVRTC comes with the toolkit this test was built with (no GPU needed): not finding it fails.
  const std::vector<int> known = cu::nvrtc::get().supported_archs();
  REQUIRE_FALSE(known.empty());
  CHECK(std::is_sorted(known.begin(), known.end()));
  const cu::compiled cubin = cu::build(source, cu::target{known.front(), false, false});
  CHECK(cubin.format == pl::cache::binary_format::cubin);
  CHECK(cubin.entry == "pl_kernel_twice");
  // An ELF file.
  REQUIRE(cubin.binary.size() > 4);
  CHECK(std::string(cubin.binary.begin() + 1, cubin.binary.begin() + 4) == "ELF");
  const cu::compiled ptx = cu::build(source, cu::target{known.back(), true, true});
  CHECK(ptx.format == pl::cache::binary_format::ptx);
  const std::string text(ptx.binary.begin(), ptx.binary.end());
  CHECK_THAT(text, Contains(".entry pl_kernel_twice") && Contains(".target sm_" + std::to_string(known.back())));
  CHECK(ptx.binary.back() == '\0');  // cuModuleLoadData reads PTX up to its end

  parloop_test::expect_compile_failure("broken");
  pl::codegen::generated_source broken = source;
  broken.kernel = "broken";
  broken.text += "\nthis is not CUDA;\n";
  CHECK_THROWS_WITH(cu::build(broken, cu::target{known.front(), false, false}),
                    Contains("kernel 'broken' failed to compile with NVRTC (--gpu-architecture=sm_") &&
                        Contains("--- compiler log ---") && Contains("--- source (CUDA) ---"));
}

TEST_CASE("verify --rebuild: a CUDA entry whose binary is not its source's is found by NVRTC, GPU or not",
          "[cuda][compile][disk]") {
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const pl::Set s(rt, 8);
  pl::Dat<double> x(s);
  const auto source_of = [&](const auto& k) {
    return pl::codegen::generate(*k.traced(x(pl::RW)), pl::codegen::dialect_kind::cuda);
  };
  const auto twice = source_of(pl::kernel("rebuilt_twice", [](auto x) { x *= 2; }));
  const auto halve = source_of(pl::kernel("rebuilt_halve", [](auto x) { x *= 0.5; }));
  const cu::nvrtc& api = cu::nvrtc::get();
  const parloop_test::temporary_folder folder;
  const auto disk = pl::cache::disk_cache::open(folder.path, pl::cache::disk_mode::read_write);
  REQUIRE(disk != nullptr);
  // An entry as the CUDA backend stores one: `source` under the signature of `t`, holding `binary`.
  const auto store = [&](const pl::codegen::generated_source& source, const cu::target& t,
                         std::vector<unsigned char> binary, const std::string& compiler) {
    pl::cache::key_material m;
    m.signature = {pl::backend_kind::cuda, "CUDA", "NVIDIA H200", "", compiler, "sm_90", t.options_text()};
    m.source = source.text;
    m.grid = pl::codegen::grid_size(pl::split_n_across_workgroups{128});
    m.block = 128;
    const pl::cache::kernel_record r{
        pl::backend_kind::cuda, t.format(), source.entry, std::move(binary), m.grid, 128, {}};
    const std::string key = pl::cache::key_of(m);
    REQUIRE(disk->store(m, key, r));
    return disk->path_of(pl::backend_kind::cuda, key);
  };
  const auto verdict = [](const std::filesystem::path& entry) { return pl::backend::check_rebuild(entry); };
  const std::vector<int> known = api.supported_archs();
  REQUIRE_FALSE(known.empty());
  const cu::target cubin{known.back(), false, false}, ptx{known.back(), true, true};

  // Entries as compiled: the same bytes again, CUBIN and PTX.
  const auto good = store(twice, cubin, cu::build(twice, cubin).binary, api.name());
  CHECK(verdict(good).outcome == pl::cache::rebuild_outcome::same);
  CHECK(verdict(store(twice, ptx, cu::build(twice, ptx).binary, api.name())).outcome ==
        pl::cache::rebuild_outcome::same);
  // Another kernel's binary sealed under this source, as a hostile export would hold it: whole,
  // well formed and filed under its own key, so plain verify passes it; rebuilding does not.
  const auto swapped = store(halve, cubin, cu::build(twice, cubin).binary, api.name());
  for (const auto& e : pl::cache::entries(*disk)) CHECK(e.problem.empty());
  const pl::cache::rebuild_verdict caught = verdict(swapped);
  CHECK(caught.outcome == pl::cache::rebuild_outcome::differs);
  CHECK_THAT(caught.why, Contains("its binary is not its source's") && Contains("bytes differ from the"));
  // A source that does not compile cannot have given any binary.
  parloop_test::expect_compile_failure("rebuilt_broken");
  pl::codegen::generated_source broken = halve;
  broken.kernel = "rebuilt_broken";
  broken.text += "\nthis is not CUDA;\n";
  const pl::cache::rebuild_verdict refused = verdict(store(broken, cubin, cu::build(twice, cubin).binary, api.name()));
  CHECK(refused.outcome == pl::cache::rebuild_outcome::differs);
  CHECK_THAT(refused.why, Contains("its source does not compile here"));
  // Another NVRTC, or options this one has no target for: not rebuilt, and not called bad.
  const pl::cache::rebuild_verdict other = verdict(store(halve, cubin, cu::build(halve, cubin).binary, "NVRTC 1.0"));
  CHECK(other.outcome == pl::cache::rebuild_outcome::not_here);
  CHECK_THAT(other.why, Contains("built by NVRTC 1.0, and this machine has " + api.name()));
  const cu::target unknown{1, false, false};
  const pl::cache::rebuild_verdict no_target =
      verdict(store(halve, unknown, cu::build(halve, cubin).binary, api.name()));
  CHECK(no_target.outcome == pl::cache::rebuild_outcome::not_here);
  CHECK_THAT(no_target.why, Contains("has no target with the options '--gpu-architecture=sm_1 "));
}

TEST_CASE("without a driver, CUDA is unavailable and says why; the program runs on", "[cuda][status]") {
  const pl::backend_status cuda = pl::backends().front();
  REQUIRE(cuda.kind == pl::backend_kind::cuda);
  bool has_driver = true;
  try {
    cu::devices();
  } catch (const pl::backend_unavailable&) {
    has_driver = false;
  }
  if (has_driver) {
    CHECK((cuda.available || !cuda.reason.empty()));
    return;
  }
  CHECK_FALSE(cuda.available);
  CHECK_THAT(cuda.reason, Contains("CUDA: the NVIDIA driver (libcuda.so.1) was not found"));
  CHECK_THROWS_WITH(pl::Runtime::open(pl::backend_kind::cuda),
                    Contains("backend 'cuda' is not available: CUDA: the NVIDIA driver (libcuda.so.1) was not found"));
  // The best backend is another one.
  CHECK(pl::Runtime::open().kind() != pl::backend_kind::cuda);
}

}  // namespace test_cuda_device
