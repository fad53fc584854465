// SPDX-License-Identifier: MIT
// Runtime: the chosen backend and the state shared by every object created on it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/core/thread_team.hpp"
#include "parloop/core/trace_checks.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/fwd.hpp"

namespace parloop {

// Whether a backend can be used in this program on this machine, and if not, why.
struct backend_status {
  backend_kind kind;
  bool available;
  std::string reason;
  // The environment names a device of this backend (PARLOOP_OPENCL_DEVICE): when it names
  // none, choosing the best backend fails rather than quietly taking another.
  bool device_requested = false;
  // The device it would open is a CPU (PoCL's): the threads backend, on the same cores without
  // compiling, goes before it.
  bool cpu_device = false;
};

namespace detail {

// OP2's OpenMP block size: blocks of 256 elements colour in a few colours on meshes like
// Airfoil's, and are long enough for a thread's run over one to cost little to start.
inline constexpr int default_thread_block = 256;

// Identifies an open backend (a device backend object, a threads runtime's pool) for as long as
// the program runs: never reused, unlike an address. Kernels and autotuning choices are kept per
// backend.
inline std::uint64_t next_backend_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

struct runtime_state {
  backend_kind kind = backend_kind::host;
  // What the environment (or the program) said when the runtime opened.
  parloop::settings settings;
  // Null on the host backend. Held without knowing its interface (fwd.hpp), so that core
  // depends on nothing above it.
  std::shared_ptr<device_backend> backend;
  // The backend's memory, where dats and globals keep their device copies; null on the host.
  device_memory* memory = nullptr;
  std::string device_name = "host";
  // The strategies of par_loops that name none, without and with a global reduction: the
  // device's preferences unless the program sets one for both.
  strategy default_strategy = split_n_across_workgroups{};
  strategy reduction_strategy = split_n_across_workgroups{};
  // How par_loops that name none keep combining writes through maps apart.
  conflicts default_conflicts = conflicts::atomics;
  // Whether par_loops that name no strategy and no conflicts are autotuned (core/autotune.hpp).
  bool autotune = false;
  // When a par_loop of a traced kernel traces it again and refuses to run where the trace
  // differs from the one kept (a captured value changed): PARLOOP_CHECK_TRACES.
  parloop::trace_checks trace_checks = parloop::trace_checks::sampled;
  // How the device keeps dats of several components: the backend's choice when it opens.
  dat_layout dats = dat_layout::aos;
  transfer_stats transfers;
  // The threads backend (its pool and what its loops keep between calls); null elsewhere.
  std::shared_ptr<thread_team> threads;
  // Elements per block where the threads backend colours or reduces (autotuned loops choose
  // their own).
  int thread_block = default_thread_block;
};

// A backend built into the program, other than the host.
struct backend_entry {
  // Whether the device `s` selects can be opened now; the backend discovers its devices once
  // per process.
  backend_status (*status)(const settings& s);
  // Opens the device state.settings selects into `state`; returns why it cannot, else "".
  std::string (*open)(runtime_state& state);
};

// Defined by backend/<name>/entry.hpp, as inline functions every including translation unit
// emits. Declared weak here: a program without the backend links (the address is null), and
// one with it finds it from any translation unit at any time -- static initialisation
// included -- since nothing has to run first to register it.
[[gnu::weak]] const backend_entry* threads_backend_entry();
[[gnu::weak]] const backend_entry* opencl_backend_entry();
[[gnu::weak]] const backend_entry* cuda_backend_entry();

inline const backend_entry* backend_entry_of(backend_kind kind) {
  switch (kind) {
    case backend_kind::threads: return &threads_backend_entry != nullptr ? threads_backend_entry() : nullptr;
    case backend_kind::opencl: return &opencl_backend_entry != nullptr ? opencl_backend_entry() : nullptr;
    case backend_kind::cuda: return &cuda_backend_entry != nullptr ? cuda_backend_entry() : nullptr;
    case backend_kind::host: break;
  }
  return nullptr;
}

// The threads backend comes with parloop::parloop; a program has it where a unit includes
// parloop.hpp (or backend/threads/entry.hpp).
inline std::string not_built(backend_kind kind) {
  if (kind == backend_kind::threads) {
    return "the threads backend is not built into this program (include <parloop/parloop.hpp>, or "
           "<parloop/backend/threads/entry.hpp>, in one of its units)";
  }
  return parloop::detail::format("the {} backend is not built into this program (link parloop::{})", backend_name(kind),
                                 backend_name(kind));
}

PARLOOP_FUNC backend_status status_of(backend_kind kind, const settings& s = settings::from_environment());

// The state's fields `s` decides before a backend opens, and the process's switches.
PARLOOP_FUNC void apply(runtime_state& state, const settings& s);

}  // namespace detail

// Every backend parloop knows, best first, with whether it is usable here (on the devices `s`
// selects): a GPU (CUDA, then OpenCL), the CPU's cores (threads, then OpenCL on a CPU device),
// one core (host).
PARLOOP_FUNC std::vector<backend_status> backends(const settings& s = settings::from_environment());

// A runtime and everything made on it (sets, maps, dats, globals) belong to one thread at a
// time; threads run loops at once on runtimes of their own. Kernels may be shared by every
// thread and runtime. Opening runtimes is safe from any thread.
class Runtime {
 public:
  // The backend and everything else the environment says (settings::from_environment):
  // PARLOOP_BACKEND=host|threads|opencl|cuda chooses; unset or empty, the best available backend.
  static Runtime open() { return open(parloop::settings::from_environment()); }

  // As `s` says, the environment unread: s.backend, else the best available backend.
  static Runtime open(const parloop::settings& s) { return s.backend ? open_kind(*s.backend, s) : open_best(s); }

  // Backend `kind`, the rest as the environment says. Opening the host backend touches no device
  // API.
  static Runtime open(backend_kind kind) { return open_kind(kind, parloop::settings::from_environment()); }

  backend_kind kind() const { return state_->kind; }
  std::string_view name() const { return backend_name(state_->kind); }
  // Host <-> device copies made so far by objects of this runtime.
  const transfer_stats& transfers() const { return state_->transfers; }
  // The device, in words; "host" on the host backend.
  const std::string& device_name() const { return state_->device_name; }

  // The launch strategy of loops that name none, and of those among them that reduce into a
  // global (on a GPU a grid sized to the device, so that each group reduces many elements).
  const strategy& default_strategy() const { return state_->default_strategy; }
  const strategy& default_reduction_strategy() const { return state_->reduction_strategy; }
  // Sets both.
  void set_default_strategy(const strategy& s) {
    detail::check_strategy(s);
    state_->default_strategy = s;
    state_->reduction_strategy = s;
  }

  // How loops that name none keep their combining writes (INC, MIN, MAX) through maps apart:
  // PARLOOP_CONFLICTS when the runtime opened, else the device's own way: atomics on a GPU, colours
  // on a CPU device. The host runs elements one by one and needs neither; the threads backend
  // colours blocks of elements whatever this says.
  conflicts default_conflicts() const { return state_->default_conflicts; }
  void set_default_conflicts(conflicts c) { state_->default_conflicts = c; }

  // Whether loops that name no strategy and no conflicts are autotuned: at its first call on a
  // device, each such loop times the device's candidate launches and keeps the fastest (kept in
  // the disk cache too). PARLOOP_AUTOTUNE when the runtime opened, else off. The host has
  // nothing to choose.
  bool autotunes() const { return state_->autotune; }
  void set_autotune(bool on) { state_->autotune = on; }

  // When a par_loop of a pl::kernel traces the lambda again and refuses to run where the trace
  // differs from the one its compiled code was made from (a value the lambda captured by
  // reference changed between loops): PARLOOP_CHECK_TRACES when the runtime opened, else
  // sampled, in every build (core/trace_checks.hpp).
  parloop::trace_checks trace_checks() const { return state_->trace_checks; }
  void set_trace_checks(parloop::trace_checks when) { state_->trace_checks = when; }

  // How the device keeps dats of several components: PARLOOP_DAT_LAYOUT when the runtime
  // opened, else the device's own way: soa on a GPU, aos on a CPU device; aos on the host and
  // threads backends, whose dats are the program's arrays.
  parloop::dat_layout dat_layout() const { return state_->dats; }

  // Waits for every loop and copy this runtime enqueued (par_loop returns once its loop is
  // enqueued); throws what those loops found wrong on the device. Reading a dat or a global
  // waits for what it needs without this.
  void synchronize() const {
    if (state_->memory != nullptr) state_->memory->synchronize();
  }

  // What the environment (or the program) said when this runtime opened.
  const parloop::settings& settings() const { return state_->settings; }

  friend bool operator==(const Runtime& a, const Runtime& b) { return a.state_ == b.state_; }

  // For the backends and the library's internals.
  explicit Runtime(std::shared_ptr<detail::runtime_state> state) : state_(std::move(state)) {}
  const std::shared_ptr<detail::runtime_state>& state() const { return state_; }

 private:
  static Runtime open_kind(backend_kind kind, const parloop::settings& s);

  // The first available backend, best first. A device the environment asks for and that is not
  // there is an error, not a reason to run somewhere else: a backend's own variable
  // (PARLOOP_OPENCL_DEVICE) binds that backend; PARLOOP_DEVICE takes the best backend that has
  // such a device, and never the host.
  static Runtime open_best(const parloop::settings& s);

  std::shared_ptr<detail::runtime_state> state_;
};

}  // namespace parloop

#if !PARLOOP_COMPILED
#include "parloop/core/runtime_impl.hpp"
#endif
