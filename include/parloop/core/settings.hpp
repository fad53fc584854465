// SPDX-License-Identifier: MIT
// Everything the environment may say to parloop, in one struct: read once, when a runtime opens
// (Runtime::open), and kept by the runtime, so that no loop, compile or tuning reads a variable
// at a time of its own. A program or a test sets one without the environment:
//   pl::settings s = pl::settings::from_environment();
//   s.threads = 4;
//   pl::Runtime rt = pl::Runtime::open(s);
// docs/environment.md lists each variable with its field.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/dat_layout.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/trace_checks.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

// Whether the disk cache is used, and for what.
enum class cache_mode : std::uint8_t { off, read_only, read_write };

struct settings {
  // PARLOOP_BACKEND: the backend Runtime::open() opens; none, the best available.
  std::optional<backend_kind> backend;
  // PARLOOP_DEVICE, PARLOOP_OPENCL_DEVICE, PARLOOP_CUDA_DEVICE: a device by index or by part of
  // its name, for any device backend or for one (which then binds the best-backend choice to it).
  std::string device, opencl_device, cuda_device;
  // PARLOOP_THREADS (else OMP_NUM_THREADS, else this rank's share of the CPUs): the threads
  // backend's pool; PARLOOP_THREADS_PIN binds thread i to the i-th CPU the process may use.
  int threads = 1;
  bool threads_pin = false;
  // PARLOOP_CONFLICTS, PARLOOP_DAT_LAYOUT: a device runtime's defaults; none, the device's own.
  std::optional<parloop::conflicts> conflicts;
  std::optional<parloop::dat_layout> dat_layout;
  // PARLOOP_AUTOTUNE: loops that name no strategy and no conflicts time their candidates.
  bool autotune = false;
  // PARLOOP_CHECK_TRACES: when a traced kernel is traced again to find a changed capture.
  parloop::trace_checks check_traces = parloop::trace_checks::sampled;
  // PARLOOP_CHECK_INDICES: generated code checks the indices it computes.
  bool check_indices = true;
  // PARLOOP_FAST_MATH: device compilers may trade IEEE accuracy for speed.
  bool fast_math = false;
  // PARLOOP_MPI_CHECK: each distributed loop first checks that every rank made the same calls.
  bool mpi_check = false;
  // PARLOOP_CACHE, PARLOOP_CACHE_DIR (else $XDG_CACHE_HOME/parloop, else ~/.cache/parloop; empty
  // when none of them is set: no disk cache), PARLOOP_CACHE_MAX_MB.
  cache_mode cache = cache_mode::read_write;
  std::filesystem::path cache_dir;
  std::uint64_t cache_max_bytes = std::uint64_t{1024} << 20;
  // PARLOOP_DUMP_SOURCE: the folder every generated source is also written to; empty, none.
  std::filesystem::path dump_source;
  // PARLOOP_LOG=info and PARLOOP_STATS=1 act on the whole process, whose kernels every runtime
  // shares: the runtime opened last sets the log, and the first that asks for the report at exit
  // turns it on for good.
  bool log = false;
  bool stats = false;
  // PARLOOP_OP2_KERNELS: the folders OP2's front end looks for kernel headers in first.
  std::vector<std::filesystem::path> op2_kernels;
  // PARLOOP_OP2_RENUMBER: OP2's front end renumbers the mesh for locality before its first loop.
  bool op2_renumber = true;

  // The settings the environment gives. A value a variable cannot hold is an argument_error
  // that names the variable and says what each value does.
  static settings from_environment();

  // The device selector for `kind`: its own variable's, else PARLOOP_DEVICE's.
  const std::string& device_for(backend_kind kind) const {
    const std::string& own = kind == backend_kind::cuda ? cuda_device : opencl_device;
    return own.empty() ? device : own;
  }
  // Whether a device of `kind` in particular is asked for.
  bool device_named_for(backend_kind kind) const {
    return !(kind == backend_kind::cuda ? cuda_device : opencl_device).empty();
  }
};

namespace detail {

// `text`, a whole number of MiB from `least` to 2^40, in bytes. The bound keeps the bytes far
// from wrapping around (2^44 MiB and more would, and then mean a few bytes); `what` names the
// setting in the error.
inline std::uint64_t mebibytes(std::string_view what, std::string_view text, std::uint64_t least) {
  constexpr std::uint64_t most = std::uint64_t{1} << 40;
  const std::optional<std::uint64_t> mb = whole_number<std::uint64_t>(text, least, most);
  if (!mb) {
    throw argument_error(parloop::detail::format(
        "{}='{}': expected a whole number of MiB, at least {} and at most {} (2^40)", what, text, least, most));
  }
  return *mb << 20;
}

inline std::string environment_text(const char* name) {
  const char* v = environment_value(name);
  return v != nullptr ? v : "";
}

// The folders of a colon-separated list, empty items left out.
inline std::vector<std::filesystem::path> folder_list(std::string_view list) {
  std::vector<std::filesystem::path> folders;
  while (!list.empty()) {
    const std::size_t colon = list.find(':');
    if (colon != 0) folders.emplace_back(list.substr(0, colon));
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return folders;
}

// PARLOOP_LOG and PARLOOP_STATS act on the process (settings::log, settings::stats): kernels are
// shared by every runtime.
struct process_switches {
  std::atomic<bool> log{false};
  std::atomic<bool> stats{false};
};
inline process_switches& process_settings() {
  static process_switches switches;
  return switches;
}

inline std::filesystem::path cache_dir_from_environment() {
  if (const char* d = environment_value("PARLOOP_CACHE_DIR")) return d;
  if (const char* x = environment_value("XDG_CACHE_HOME")) return std::filesystem::path(x) / "parloop";
  if (const char* h = environment_value("HOME")) return std::filesystem::path(h) / ".cache" / "parloop";
  return {};
}

}  // namespace detail

}  // namespace parloop

#if !PARLOOP_COMPILED
#include "parloop/core/settings_impl.hpp"
#endif
