// SPDX-License-Identifier: MIT
// What the disk cache promises for the first par_loop of a fresh process, each figure measured
// in a fresh process (this program run again as a child), so that nothing is in memory yet:
//  - cold against warm: the first par_loop with an empty parloop cache folder against one a
//    previous process filled. The device compilers' own disk caches are off in both (PoCL:
//    POCL_KERNEL_CACHE=0 and a new empty POCL_CACHE_DIR per process; NVIDIA:
//    CUDA_CACHE_DISABLE=1), so that cold means cold. Goal on OpenCL: at least 100x.
//  - OpenCL: parloop's warm cache against the device compiler's own cache, warm (PoCL's kernel
//    cache, NVIDIA's compute cache, on, in a folder a previous process filled) with parloop's
//    off (PARLOOP_CACHE=off). Goal: at most 1x.
//  - CUDA: the warm first par_loop against cuModuleLoadData alone of the same binary (the CUBIN
//    the cache entry holds, read and decoded beforehand), timed in the same process; each goes
//    first in every other process. Goal: at most 0.25 ms more.
// A child times, after Runtime::open returned and the arrays were copied to the device, one
// par_loop of a triad (a = b + s * c, 2^20 doubles, the runtime's default strategy) and the wait
// for it: tracing, code generation, the key's hash, the disk cache's read and decoding, and the
// device's load of the binary (OpenCL: clCreateProgramWithBinary, clBuildProgram, clCreateKernel;
// CUDA: cuModuleLoadData, cuModuleGetFunction, cuFuncGetAttribute) -- or, cold, the compile and
// the store of the entry -- then the launch and whatever the driver does at a kernel's first
// launch. It checks the result against a plain C++ loop, and reports the kernel's compiles and
// loads from disk, which the parent checks for each kind of trial.
// Usage: bench_startup [cold trials] [warm trials]. PARLOOP_BACKEND (opencl or cuda; default: the
// best device backend) picks the backend, PARLOOP_OPENCL_DEVICE or PARLOOP_CUDA_DEVICE the device.
#include <parloop/cache/disk_maintenance.hpp>
#include <parloop/parloop.hpp>
#if PARLOOP_HAVE_CUDA
#include <parloop/backend/cuda/backend.hpp>
#endif

#include "common.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pl = parloop;

namespace {

using parloop_bench::median;

constexpr int log2_n = 20;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// ---- The child: one first par_loop, in a process of its own. ----

#if PARLOOP_HAVE_CUDA
// The binary of the one good CUDA entry in the disk cache, read through the cache's own API (its
// entries, then the entry's bytes decoded).
std::vector<unsigned char> cached_cuda_binary(const pl::cache::disk_cache& disk) {
  std::vector<pl::cache::entry_info> found;
  for (pl::cache::entry_info& e : pl::cache::entries(disk)) {
    if (e.problem.empty() && e.backend == pl::backend_name(pl::backend_kind::cuda)) found.push_back(std::move(e));
  }
  if (found.size() != 1) {
    throw std::runtime_error("the disk cache '" + disk.dir().string() + "' holds " + std::to_string(found.size()) +
                             " good CUDA entries, not the one of the triad");
  }
  std::ifstream in(found.front().path, std::ios::binary);
  const std::vector<unsigned char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  pl::cache::decoded_entry entry = pl::cache::decode_entry(bytes);
  if (!entry.record) throw std::runtime_error(found.front().path.string() + ": " + entry.problem);
  return std::move(entry.record->binary);
}
#endif

// Times cuModuleLoadData alone (milliseconds) of the binary (the CUBIN) the warm disk cache holds
// for the runtime's device, read beforehand; the module is unloaded after the clock stops.
std::function<double()> module_load_timer([[maybe_unused]] const pl::Runtime& rt) {
#if PARLOOP_HAVE_CUDA
  namespace cu = parloop::backend::cuda;
  if (rt.kind() == pl::backend_kind::cuda && rt.state()->backend->disk() != nullptr) {
    const auto& backend = static_cast<const cu::backend&>(*rt.state()->backend);
    return [&ctx = backend.cuda_context(), binary = cached_cuda_binary(*backend.disk())] {
      ctx.make_current();
      CUmodule module = nullptr;
      const auto start = std::chrono::steady_clock::now();
      ctx.api().check(ctx.api().module_load_data(&module, binary.data()), "cuModuleLoadData");
      const double ms = milliseconds_since(start);
      ctx.api().check(ctx.api().module_unload(module), "cuModuleUnload");
      return ms;
    };
  }
#endif
  throw std::runtime_error("the module load is timed on the CUDA backend with its disk cache on only");
}

// `order`: "loop" times the first par_loop; "loop-then-load" and "load-then-loop" time
// cuModuleLoadData of the cached binary too, after or before it. Prints what the parent reads;
// exits with 77 where there is no device backend.
int run_child(std::string_view order) {
  const pl::Runtime rt = pl::Runtime::open();
  if (rt.kind() == pl::backend_kind::host) {
    std::printf("unavailable: no device backend here (the host backend has no disk cache)\n");
    return 77;
  }
  const pl::detail::device_backend& backend = *rt.state()->backend;
  const int n = 1 << log2_n;
  const pl::Set points(rt, n, "points");
  std::vector<double> b0(static_cast<std::size_t>(n)), c0(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < b0.size(); ++i) {
    b0[i] = 0.5 + static_cast<double>(i % 97) * 0.01;
    c0[i] = 1.5 - static_cast<double>(i % 89) * 0.01;
  }
  pl::Dat<double> a(points), b(points, b0), c(points, c0);
  pl::Global<double> s(rt, 3.0);
  // The copies to the device are not the disk cache's business: they go before the clock starts.
  for (pl::detail::mirrored_array* array : {&a.state().array, &b.state().array, &c.state().array, &s.state().array}) {
    array->ensure_device(*rt.state()->memory);
  }
  rt.synchronize();
  auto triad = pl::kernel("triad", [](auto a, auto b, auto c, auto s) { a = b + s * c; });

  const std::function<double()> time_module_load = order == "loop" ? nullptr : module_load_timer(rt);
  std::optional<double> load_ms;
  if (order == "load-then-loop") load_ms = time_module_load();
  const auto start = std::chrono::steady_clock::now();
  pl::par_loop(triad, points, a(pl::WRITE), b(pl::READ), c(pl::READ), s(pl::READ));
  rt.synchronize();
  const double loop_ms = milliseconds_since(start);
  if (order == "loop-then-load") load_ms = time_module_load();

  // A device may fuse s * c + b into one rounding: a few units in the last place.
  const auto got = a.host();
  double max_diff = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) max_diff = std::max(max_diff, std::abs(got[i] - (b0[i] + 3.0 * c0[i])));
  if (max_diff > 1e-14) {
    std::fprintf(stderr, "bench_startup: wrong triad: max |a - (b + s*c)| = %g\n", max_diff);
    return 1;
  }
  std::printf("backend: %s\ndevice: %s\nsignature: %s\n", std::string(rt.name()).c_str(), backend.describe().c_str(),
              to_string(backend.signature()).c_str());
  std::printf("first-loop ms=%.6f compiles=%llu disk-hits=%llu\n", loop_ms,
              static_cast<unsigned long long>(triad.cache().compiles()),
              static_cast<unsigned long long>(triad.cache().disk_hits()));
  if (load_ms) std::printf("module-load ms=%.6f\n", *load_ms);
  return 0;
}

// ---- The parent: trials in child processes, and the report. ----

volatile std::sig_atomic_t interrupted = 0;

void note_interrupt(int signal) { interrupted = signal; }

// A folder made with mkdtemp, removed with everything in it when this goes (also when a trial
// fails or the run is interrupted).
class temp_folder {
 public:
  explicit temp_folder(const std::filesystem::path& parent) {
    std::string pattern = (parent / "bench-startup-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp in '" + parent.string() + "': " + std::strerror(errno));
    }
    path_ = pattern;
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

bool holds_a_file(const std::filesystem::path& folder) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (it->is_regular_file()) return true;
  }
  return false;
}

using environment = std::vector<std::pair<std::string, std::string>>;

// A child found no device backend to measure (it exits with 77, as a skipped test does).
struct backend_missing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct child_report {
  std::string backend, device, signature;
  double loop_ms = 0.0;
  unsigned long long compiles = 0, disk_hits = 0;
  std::optional<double> load_ms;
};

// Runs this program again (/proc/self/exe) as a child timing `order`, with `env` set over this
// process's environment, and reads what it prints. Throws if it fails, prints no figure, or
// compiled and loaded from disk other than `compiles` and `disk_hits` times: a wrong
// measurement is worse than none.
child_report run_child_process(const std::string& what, const std::string& order, const environment& env,
                               unsigned long long compiles, unsigned long long disk_hits) {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const auto& kv) {
      return entry.size() > kv.first.size() && entry.starts_with(kv.first) && entry[kv.first.size()] == '=';
    });
    if (!replaced) entries.emplace_back(entry);
  }
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = "bench_startup", child_flag = "--child", order_arg = order;
  char* argv[] = {program.data(), child_flag.data(), order_arg.data(), nullptr};

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(out[0]);
    throw std::runtime_error(std::string("posix_spawn /proc/self/exe: ") + std::strerror(spawned));
  }
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = ::read(out[0], buffer, sizeof buffer)) != 0;) {
    if (got > 0)
      text.append(buffer, static_cast<std::size_t>(got));
    else if (errno != EINTR)
      break;
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (interrupted != 0) throw std::runtime_error("interrupted");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
    const std::size_t at = text.find("unavailable: ");
    if (at == std::string::npos) throw backend_missing(text);
    throw backend_missing(text.substr(at + 13, text.find('\n', at) - (at + 13)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(what + ": the child process failed (" +
                             (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                : "signal " + std::to_string(WTERMSIG(status))) +
                             "); it printed:\n" + text);
  }
  child_report r;
  bool timed = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    double ms = 0.0;
    if (line.starts_with("backend: ")) r.backend = line.substr(9);
    if (line.starts_with("device: ")) r.device = line.substr(8);
    if (line.starts_with("signature: ")) r.signature = line.substr(11);
    if (std::sscanf(line.c_str(), "first-loop ms=%lf compiles=%llu disk-hits=%llu", &r.loop_ms, &r.compiles,
                    &r.disk_hits) == 3) {
      timed = true;
    }
    if (std::sscanf(line.c_str(), "module-load ms=%lf", &ms) == 1) r.load_ms = ms;
  }
  if (!timed) throw std::runtime_error(what + ": the child process printed no timing:\n" + text);
  if (r.compiles != compiles || r.disk_hits != disk_hits) {
    throw std::runtime_error(what + ": the kernel compiled " + std::to_string(r.compiles) + " times and was loaded " +
                             std::to_string(r.disk_hits) + " times from the disk cache; expected " +
                             std::to_string(compiles) + " and " + std::to_string(disk_hits));
  }
  return r;
}

// The parent opens no runtime: a process that has NVIDIA's OpenCL open keeps other processes
// from seeing it (seen on an H200 machine), and the children are to find every device free.
int run_parent(int cold_trials, int warm_trials) {
  const char* requested = std::getenv("PARLOOP_BACKEND");
  // Empty: the first child takes the best device backend, and every other child the same.
  std::string backend_name = requested != nullptr ? requested : "";
  if (!backend_name.empty() && backend_name != "opencl" && backend_name != "cuda") {
    throw std::runtime_error("PARLOOP_BACKEND='" + backend_name +
                             "': the disk cache is a device backend's; use "
                             "opencl or cuda");
  }
  // A signal ends the run once the child in flight has ended, so that the folders below go too.
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action {};
    action.sa_handler = note_interrupt;
    ::sigaction(signal, &action, nullptr);
  }

  const temp_folder root(std::filesystem::temp_directory_path());
  const temp_folder warm_cache(root.path());  // parloop's cache, filled once
  const temp_folder own_cache(root.path());   // the device compiler's cache, filled once
  // Cold and warm: parloop's cache on in `parloop_dir`, the compilers' own caches off (PoCL's
  // in an empty folder of the process's own all the same).
  const auto parloop_cache_only = [&](const std::string& parloop_dir, const std::string& pocl_dir) {
    return environment{{"PARLOOP_BACKEND", backend_name},  {"PARLOOP_CACHE", "on"},
                       {"PARLOOP_CACHE_DIR", parloop_dir}, {"POCL_KERNEL_CACHE", "0"},
                       {"POCL_CACHE_DIR", pocl_dir},       {"CUDA_CACHE_DISABLE", "1"}};
  };

  // Untimed: fill parloop's cache (and bring the libraries into memory).
  const temp_folder first_pocl_dir(root.path());
  child_report first;
  try {
    first = run_child_process("the process filling parloop's cache", "loop",
                              parloop_cache_only(warm_cache.str(), first_pocl_dir.str()), 1, 0);
  } catch (const backend_missing& e) {
    std::printf("bench_startup: nothing measured: %s\n", e.what());
    return 77;
  }
  backend_name = first.backend;
  const pl::backend_kind backend = backend_name == "cuda" ? pl::backend_kind::cuda : pl::backend_kind::opencl;
  const environment compiler_cache_only{{"PARLOOP_BACKEND", backend_name}, {"PARLOOP_CACHE", "off"},
                                        {"POCL_KERNEL_CACHE", "1"},        {"POCL_CACHE_DIR", own_cache.str()},
                                        {"CUDA_CACHE_DISABLE", "0"},       {"CUDA_CACHE_PATH", own_cache.str()}};
  // Untimed too: fill the compiler's cache.
  bool compiler_cache = false;
  if (backend == pl::backend_kind::opencl) {
    run_child_process("the process filling the compiler's cache", "loop", compiler_cache_only, 1, 0);
    compiler_cache = holds_a_file(own_cache.path());
  }

  enum class trial_kind { cold, warm, compiler_cache };
  // One trial, in a child process of its own.
  const auto run = [&](trial_kind kind, int trial) {
    const temp_folder pocl_dir(root.path());
    if (kind == trial_kind::cold) {
      const temp_folder empty(root.path());
      return run_child_process("a process on an empty parloop cache", "loop",
                               parloop_cache_only(empty.str(), pocl_dir.str()), 1, 0);
    }
    if (kind == trial_kind::warm) {
      // On CUDA, the module load alone goes first in every other process.
      const std::string order = backend != pl::backend_kind::cuda ? "loop"
                                : trial % 2 == 0                  ? "loop-then-load"
                                                                  : "load-then-loop";
      return run_child_process("a process on a warm parloop cache", order,
                               parloop_cache_only(warm_cache.str(), pocl_dir.str()), 0, 1);
    }
    return run_child_process("a process with parloop's cache off", "loop", compiler_cache_only, 1, 0);
  };

  std::printf(
      "The first par_loop of a fresh process: triad (a = b + s * c), 2^%d doubles, default strategy;\n"
      "each figure the median over child processes (%d cold, %d warm), the kinds in rotating order\n",
      log2_n, cold_trials, warm_trials);
  std::printf("device: %s\nsignature: %s\n\n", first.device.c_str(), first.signature.c_str());
  std::fflush(stdout);

  // On CUDA, by order: [0] the loop first, [1] the module load first.
  std::vector<double> cold, warm, own, loads;
  std::array<std::vector<double>, 2> loop_by_order, load_by_order;
  for (int t = 0; t < std::max(cold_trials, warm_trials); ++t) {
    std::vector<trial_kind> kinds;
    if (t < cold_trials) kinds.push_back(trial_kind::cold);
    if (t < warm_trials) kinds.push_back(trial_kind::warm);
    if (t < warm_trials && compiler_cache) kinds.push_back(trial_kind::compiler_cache);
    std::rotate(kinds.begin(), kinds.begin() + t % static_cast<int>(kinds.size()), kinds.end());
    for (const trial_kind kind : kinds) {
      const child_report r = run(kind, t);
      if (kind == trial_kind::cold) cold.push_back(r.loop_ms);
      if (kind == trial_kind::compiler_cache) own.push_back(r.loop_ms);
      if (kind != trial_kind::warm) continue;
      warm.push_back(r.loop_ms);
      if (!r.load_ms) continue;
      loads.push_back(*r.load_ms);
      loop_by_order[static_cast<std::size_t>(t % 2)].push_back(r.loop_ms);
      load_by_order[static_cast<std::size_t>(t % 2)].push_back(*r.load_ms);
    }
  }

  const double t_cold = median(cold), t_warm = median(warm);
  std::printf("%-66s %10.3f ms\n", "first par_loop, parloop cache cold (empty folder)", t_cold);
  std::printf("%-66s %10.3f ms\n", "first par_loop, parloop cache warm", t_warm);
  if (compiler_cache) {
    std::printf("%-66s %10.3f ms\n", "first par_loop, parloop cache off, the compiler's own cache warm", median(own));
  }
  std::printf("\ncold / warm ratio (first par_loop, fresh process): %.1f   (%s)\n", t_cold / t_warm,
              backend == pl::backend_kind::opencl ? "goal >= 100" : "no goal here; CUDA's is the module load below");
  if (compiler_cache) {
    std::printf("warm parloop cache / compiler's own cache ratio (first par_loop, fresh process): %.2f   (goal <= 1)\n",
                t_warm / median(own));
  } else if (backend == pl::backend_kind::opencl) {
    std::printf("no figure for the compiler's own cache: with it on, %s wrote nothing in its cache folder\n",
                first.device.c_str());
  }
  if (!loads.empty()) {
    const double t_load = median(loads);
    std::printf(
        "first par_loop on a warm cache %.3f ms, cuModuleLoadData of its CUBIN alone %.3f ms: %+.3f ms "
        "(goal <= +0.25 ms), ratio %.2f\n",
        t_warm, t_load, t_warm - t_load, t_warm / t_load);
    std::printf(
        "  by order: loop first %.3f ms, then the load %.3f ms (%zu processes); load first %.3f ms, then the "
        "loop %.3f ms (%zu)\n",
        median(loop_by_order[0]), median(load_by_order[0]), loop_by_order[0].size(), median(load_by_order[1]),
        median(loop_by_order[1]), loop_by_order[1].size());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::string_view(argv[1]) == "--child") {
      try {
        return run_child(argv[2]);
      } catch (const pl::backend_unavailable& e) {
        std::printf("unavailable: %s\n", e.what());
        return 77;
      }
    }
    const int cold_trials = argc > 1 ? std::atoi(argv[1]) : 5;
    const int warm_trials = argc > 2 ? std::atoi(argv[2]) : 16;
    if (cold_trials < 1 || warm_trials < 2) {
      std::fprintf(stderr, "usage: bench_startup [cold trials >= 1] [warm trials >= 2]\n");
      return 2;
    }
    return run_parent(cold_trials, warm_trials);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_startup: %s\n", e.what());
    return 1;
  }
}
