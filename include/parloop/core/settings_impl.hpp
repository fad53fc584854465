// SPDX-License-Identifier: MIT
// The definition of settings::from_environment (core/settings.hpp): compiled once into the library
// under PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <optional>

#include "parloop/config.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/dat_layout.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/core/thread_count.hpp"
#include "parloop/core/trace_checks.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop {

PARLOOP_FUNC settings settings::from_environment() {
  using detail::choice_from_environment;
  using detail::switch_from_environment;
  settings s;
  s.backend = choice_from_environment<std::optional<backend_kind>>(
      "PARLOOP_BACKEND", std::nullopt,
      {{"host", backend_kind::host, "the CPU, one element after another: the reference"},
       {"threads", backend_kind::threads, "the CPU's cores, a pool of threads"},
       {"opencl", backend_kind::opencl, "an OpenCL device"},
       {"cuda", backend_kind::cuda, "an NVIDIA GPU through the CUDA driver"}},
      "the best available backend");
  s.device = detail::environment_text("PARLOOP_DEVICE");
  s.opencl_device = detail::environment_text("PARLOOP_OPENCL_DEVICE");
  s.cuda_device = detail::environment_text("PARLOOP_CUDA_DEVICE");
  s.threads = detail::threads_from_environment();
  s.threads_pin =
      switch_from_environment("PARLOOP_THREADS_PIN", false, "binds worker thread i to the i-th CPU the process may use",
                              "leaves the threads where the system puts them");
  s.conflicts = choice_from_environment<std::optional<parloop::conflicts>>(
      "PARLOOP_CONFLICTS", std::nullopt,
      {{"atomics", conflicts::atomics, "combining writes through maps are atomic"},
       {"colors", conflicts::colors, "a launch per colour of elements that share no target"},
       {"blocks", conflicts::blocks, "OP2's two-level plan: coloured blocks, increments staged in local memory"}},
      "what suits the device");
  s.dat_layout = choice_from_environment<std::optional<parloop::dat_layout>>(
      "PARLOOP_DAT_LAYOUT", std::nullopt,
      {{"soa", dat_layout::soa, "a device keeps each component of a dat together"},
       {"aos", dat_layout::aos, "element by element, as the host does"}},
      "what suits the device");
  s.autotune = switch_from_environment("PARLOOP_AUTOTUNE", false,
                                       "time each loop's candidate launches at its first call and keep the fastest",
                                       "loops run as the runtime's defaults say");
  s.check_traces = choice_from_environment<trace_checks>(
      "PARLOOP_CHECK_TRACES", trace_checks::sampled,
      {{"sampled", trace_checks::sampled,
        parloop::detail::format("the first {} calls of each kernel's signature, then one in {}",
                                detail::trace_checks_first, detail::trace_checks_every)},
       {"1", trace_checks::every_call, "every call traces its kernel again"},
       {"0", trace_checks::off, "a kernel is traced once per argument signature"}});
  s.check_indices =
      switch_from_environment("PARLOOP_CHECK_INDICES", true, "check computed indices on the device", "do not");
  s.fast_math =
      switch_from_environment("PARLOOP_FAST_MATH", false, "the device compiler's fast math", "IEEE arithmetic");
  s.mpi_check = switch_from_environment("PARLOOP_MPI_CHECK", false,
                                        "each distributed loop checks that the ranks made the same calls", "no check");
  s.cache = choice_from_environment<cache_mode>(
      "PARLOOP_CACHE", cache_mode::read_write,
      {{"on", cache_mode::read_write, "kernels are kept on disk and loaded from there"},
       {"off", cache_mode::off, "no disk cache"},
       {"read-only", cache_mode::read_only, "entries are loaded, none written"}});
  s.cache_dir = detail::cache_dir_from_environment();
  if (const char* v = detail::environment_value("PARLOOP_CACHE_MAX_MB")) {
    s.cache_max_bytes = detail::mebibytes("PARLOOP_CACHE_MAX_MB", v, 1);
  }
  s.dump_source = detail::environment_text("PARLOOP_DUMP_SOURCE");
  s.log = choice_from_environment<bool>(
      "PARLOOP_LOG", false,
      {{"info", true, "a line for each kernel compiled or loaded from the disk cache"}, {"off", false, "no lines"}});
  s.stats = switch_from_environment(
      "PARLOOP_STATS", false, "report each kernel's calls and times at exit; each par_loop then waits for its device",
      "do not");
  s.op2_kernels = detail::folder_list(detail::environment_text("PARLOOP_OP2_KERNELS"));
  s.op2_renumber = switch_from_environment("PARLOOP_OP2_RENUMBER", true,
                                           "the sets are renumbered for locality before the first loop",
                                           "the sets keep the order they were declared in");
  return s;
}

}  // namespace parloop

PARLOOP_COLD_END
