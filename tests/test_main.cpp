// SPDX-License-Identifier: MIT
// Around the Catch2 run of every test executable (catch_main.cpp): the suite's environment
// before, and after it every kernel the tests made compiled with the real device compilers --
// OpenCL C with clBuildProgram (PoCL here), CUDA through NVRTC's front end (for sm_90, to machine
// code, where PARLOOP_TEST_COMPILE_KERNELS=full) -- so that every kernel of the test suite is known
// to compile.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <parloop/codegen/generate.hpp>
#include <parloop/codegen/kernel_source.hpp>
#include <parloop/exec/kernel/kernel_cache.hpp>
#include <parloop/ir/hash.hpp>

#include "compile_all.hpp"
#include "device_under_test.hpp"
#include "test_main.hpp"
#if PARLOOP_TEST_OPENCL
#include <parloop/backend/opencl/compile.hpp>
#endif
#if PARLOOP_TEST_CUDA
#include <parloop/backend/cuda/backend.hpp>
#include <parloop/backend/cuda/compile.hpp>
#endif

namespace pl = parloop;
namespace cg = parloop::codegen;

namespace {

std::mutex collected_mutex;
std::vector<pl::ir::kernel> collected;
std::vector<std::string> expected_failures;

void collect(const pl::ir::kernel& k) {
  std::lock_guard lock(collected_mutex);
  for (const std::string& name : expected_failures) {
    if (k.name == name) return;
  }
  for (const pl::ir::kernel& c : collected) {
    if (c == k) return;
  }
  collected.push_back(k);
}

// Compiles kernels in batches (one program for many kernels costs PoCL little more than one
// kernel); a failed batch is compiled kernel by kernel to name the culprit. Each kernel is
// generated as strategy `s` generates it, for dats kept by components (as device runtimes keep
// them by default). Returns the number of kernels that failed.
template <class Build>
int compile_all(cg::dialect_kind dialect, const pl::strategy& s, const char* compiler, Build&& build) {
  std::vector<cg::generated_source> single;
  std::vector<std::vector<cg::generated_source>> batches(1);
  for (std::size_t i = 0; i < collected.size(); ++i) {
    pl::ir::kernel k = collected[i];
    // A kernel that combines through maps is compiled coloured and with a two-level plan too.
    std::vector<pl::conflicts> ways{pl::conflicts::atomics};
    if (pl::ir::combines_through_maps(k)) ways.insert(ways.end(), {pl::conflicts::colors, pl::conflicts::blocks});
    const auto generated = [&](pl::conflicts c) {
      return cg::generate(k, dialect, pl::codegen::for_kernel(k, s, c), {.writes = c, .dats = pl::dat_layout::soa});
    };
    if (!k.raw_source.empty()) {
      // Its C function is called by name: it cannot be renamed into a batch.
      for (const pl::conflicts c : ways) {
        cg::generated_source source = generated(c);
        if (c == pl::conflicts::blocks && source.needs.group_memory > 48 * 1024) continue;
        single.push_back(std::move(source));
      }
      continue;
    }
    const std::string name = k.name + "_" + std::to_string(i);
    for (const pl::conflicts c : ways) {
      k.name = c == pl::conflicts::atomics ? name : name + "_" + std::string(pl::to_string(c));
      cg::generated_source source = generated(c);
      // A plan that stages more than a CUDA block's 48 KB of static shared memory is refused by
      // the backend before it compiles (test_coloring's too_wide): so is it here.
      if (c == pl::conflicts::blocks && source.needs.group_memory > 48 * 1024) continue;
      if (batches.back().size() >= 100) batches.emplace_back();
      batches.back().push_back(std::move(source));
    }
  }
  int failed = 0;
  const auto one = [&](const cg::generated_source& s) {
    try {
      build(s);
    } catch (const pl::compile_error& e) {
      ++failed;
      std::fprintf(stderr, "%s\n", e.what());
    }
  };
  for (const auto& batch : batches) {
    if (batch.empty()) continue;
    cg::generated_source all{dialect, "batch", "batch", {}, {}, {}};
    for (const auto& s : batch) all.text += s.text + "\n";
    try {
      build(all);
    } catch (const pl::compile_error&) {
      for (const auto& s : batch) one(s);
    }
  }
  for (const auto& s : single) one(s);
  std::printf("parloop tests: %zu kernels compiled with %s: %d failed\n", collected.size(), compiler, failed);
  return failed;
}

int compile_collected() {
  const char* setting = std::getenv("PARLOOP_TEST_COMPILE_KERNELS");
  if (setting != nullptr && std::string(setting) == "0") {
    std::printf("parloop tests: compiling the kernels is skipped (PARLOOP_TEST_COMPILE_KERNELS=0)\n");
    return 0;
  }
  [[maybe_unused]] const bool full = setting != nullptr && std::string(setting) == "full";
  int failed = 0;
#if PARLOOP_TEST_OPENCL
  try {
    const auto context = pl::backend::opencl::context::first();
    failed += compile_all(cg::dialect_kind::opencl, pl::split_n_across_workgroups{},
                          ("clBuildProgram on " + context.device().name).c_str(),
                          [&](const cg::generated_source& s) { pl::backend::opencl::build_program(context, s); });
  } catch (const pl::backend_unavailable& e) {
    std::printf("parloop tests: OpenCL C kernels not compiled: %s\n", e.what());
  }
#else
  std::printf("parloop tests: OpenCL C kernels not compiled: built without OpenCL\n");
#endif
#if PARLOOP_TEST_CUDA
  try {
    pl::backend::cuda::nvrtc::get();
    // NVRTC's front end checks every kernel; PARLOOP_TEST_COMPILE_KERNELS=full also optimises
    // and assembles it for sm_90 (most of NVRTC's time), as run_gpu.sh does.
    const pl::backend::cuda::target sm_90{.arch = 90, .check_only = !full};
    // As CUDA runs them by default: the vector path, and the one-element path inside it.
    failed += compile_all(cg::dialect_kind::cuda, pl::backend::cuda::default_loop_strategy,
                          ("NVRTC " + sm_90.options_text()).c_str(),
                          [&](const cg::generated_source& s) { pl::backend::cuda::build(s, sm_90); });
  } catch (const pl::backend_unavailable& e) {
    std::printf("parloop tests: CUDA kernels not compiled: %s\n", e.what());
  }
#else
  std::printf("parloop tests: CUDA kernels not compiled: built without the CUDA toolkit\n");
#endif
  return failed;
}

}  // namespace

void parloop_test::expect_compile_failure(const std::string& kernel_name) {
  std::lock_guard lock(collected_mutex);
  expected_failures.push_back(kernel_name);
}

std::optional<int> parloop_test::before_tests() {
  // Tests count compiles, which an earlier run's disk cache would save: the disk cache's own
  // tests turn it on, in folders of their own.
  ::setenv("PARLOOP_CACHE", "off", 1);
  // Every loop of the suite traces its kernel again and compares (a captured value that drifts).
  ::setenv("PARLOOP_CHECK_TRACES", "1", 0);
  pl::backend_kind tested = pl::backend_kind::host;
  try {
    tested = parloop_test::tested_backend(pl::backend_kind::host);
  } catch (const pl::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  // Only a run on a device asks for devices: some tests count the first listing.
  if (tested != pl::backend_kind::host) {
    if (const pl::backend_status s = pl::detail::status_of(tested); !s.available) {
      std::printf("skipped: the %s backend is not available here: %s\n", pl::backend_name(tested).data(),
                  s.reason.c_str());
      return 77;
    }
  }
  pl::detail::set_ir_observer(collect);
  return std::nullopt;
}

int parloop_test::after_tests() { return compile_collected(); }
