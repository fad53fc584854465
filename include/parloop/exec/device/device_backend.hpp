// SPDX-License-Identifier: MIT
// The seam between exec/ and a device backend. Compiling runs in steps a cache can sit
// between: a strategy makes the source and its grid-size functor (codegen/kernel_source.hpp); a
// backend builds the source into a launcher; a launcher gives its kernel_record; a backend
// loads a record into a launcher. Launching is exec's (grid, empty ranges, binding, reductions:
// device_launch.hpp) up to the one call a backend makes: the launcher's enqueue.
//
// The contract. A device backend is a folder backend/<name>/ with these files in these roles:
//   entry.hpp, entry_impl.hpp  <name>_backend_entry(), which Runtime finds (core/runtime.hpp):
//                 the backend's status and its open; compiled into libparloop_<name>.a under
//                 PARLOOP_COMPILED
//   backend.hpp   the device_backend below: what it is (describe, signature, facts, dialect),
//                 its strategies, build, load, and its memory(), memory.hpp's
//   device.hpp    the devices the API lists, what each can do, the one the settings select
//                 (settings::device_for: PARLOOP_<NAME>_DEVICE, else PARLOOP_DEVICE), and its
//                 context
//   compile.hpp   source to binary with the API's compiler; a failure is a compile_error with
//                 the compiler's log
//   launch.hpp    the launcher: a loaded kernel, its record and its enqueue
//   memory.hpp    device_memory (core/validity.hpp): buffers and copies, in order with the
//                 kernels on one queue
//   rebuild.hpp   a disk cache entry rebuilt from its source and compared with its binary
// and the API's own loading where it has one (CUDA: driver.hpp, nvrtc.hpp, library.hpp; OpenCL:
// cl.hpp). What every backend keeps to:
// - Only its API's calls live there: sources, grids, binding, reductions, index checks, the disk
//   cache and the ranks' agreement are exec's, the same for all.
// - signature() holds everything a binary depends on besides its source: it is the disk
//   cache's key with the source.
// - build checks that the device can run the source (features, block size) before compiling,
//   and throws (compile_error, backend_unavailable, error) naming the device and the call;
//   neither build nor load leaves anything half-made behind.
// - enqueue never waits; nor does an upload that fits the backend's staging buffer (it is
//   copied there first, so the caller may reuse its memory at once): a larger upload waits for
//   its copy, and a download for everything before it; wait() waits for all of them.
// - Opening throws backend_unavailable, with the reason, where the API, a device or a compiler
//   is missing: a program built with the backend runs where it is not.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/cache/device_signature.hpp"
#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/codegen/dialect.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_defaults.hpp"
#include "parloop/exec/device/index_errors.hpp"
#include "parloop/exec/device/reduction_scratch.hpp"
#include "parloop/ir/grid.hpp"
#include "parloop/ir/layout.hpp"

namespace parloop::detail {

// A kernel loaded on one device, ready to run: what a backend's build or load returns.
class launcher {
 public:
  launcher(ir::grid_size_functor grid, int block, std::vector<ir::kernel_buffer> layout)
      : grid_(std::move(grid)), block_(block), layout_(std::move(layout)) {}
  virtual ~launcher() = default;
  launcher(const launcher&) = delete;
  launcher& operator=(const launcher&) = delete;

  const ir::grid_size_functor& grid() const { return grid_; }
  int block() const { return block_; }
  // The kernel's buffers after start and end, in the order enqueue takes them.
  std::span<const ir::kernel_buffer> layout() const { return layout_; }

  // Enqueues elements [start, end) on `groups` groups of block() work-items, with `buffers`
  // and then `strides` (the int parameters of buffer_role::stride) in layout() order. Never
  // waits for the device.
  virtual void enqueue(index_t start, index_t end, std::int64_t groups, std::span<const device_buffer* const> buffers,
                       std::span<const int> strides) = 0;

  // The kernel as a record that the backend's load turns back into a launcher (for the disk
  // cache). Asked for, not made with every build: on some devices (PoCL) the binary costs a
  // compile of its own.
  virtual cache::kernel_record record() const = 0;

  // Work to do once, after this launcher's first use by a par_loop (its first enqueue, or a
  // call over an empty range): the disk cache's record, on devices that finish a kernel at its
  // first launch. Set before the launcher is shared.
  void after_first_launch(std::function<void()> work) {
    first_launch_work_ = std::move(work);
    first_launch_pending_.store(true, std::memory_order_release);
  }
  // Called by exec after each use: one relaxed load, unless work is pending. The work goes when
  // it has run (or thrown), and what it holds with it.
  void launched() {
    if (first_launch_pending_.load(std::memory_order_relaxed) &&
        first_launch_pending_.exchange(false, std::memory_order_acq_rel)) {
      const std::function<void()> work = std::move(first_launch_work_);
      work();
    }
  }
  // Called by exec where a use threw before it launched (out of device memory, say): the work
  // goes undone, and what it holds (the disk cache key's lock that other processes wait on) with
  // it. The next process compiles the kernel itself.
  void first_launch_failed() noexcept {
    if (first_launch_pending_.load(std::memory_order_relaxed) &&
        first_launch_pending_.exchange(false, std::memory_order_acq_rel)) {
      first_launch_work_ = nullptr;
    }
  }

 private:
  std::function<void()> first_launch_work_;
  std::atomic<bool> first_launch_pending_{false};
  ir::grid_size_functor grid_;
  int block_;
  std::vector<ir::kernel_buffer> layout_;
};

// Whoever keeps a backend's launchers (a kernel's cache) and must let go of them when the
// backend closes: a closed runtime's compiled kernels hold its device context.
class launcher_owner {
 public:
  virtual ~launcher_owner() = default;
  virtual void drop(std::uint64_t backend_id) = 0;
};

class device_backend : public device_memory {
 public:
  // `s` as the runtime opening it says; what it leaves to the device, `defaults`.
  device_backend(const parloop::settings& s, device_defaults defaults)
      : id_(next_backend_id()),
        settings_(s),
        options_{.check_indices = s.check_indices, .dats = s.dat_layout.value_or(defaults.dats)},
        conflicts_(s.conflicts.value_or(defaults.writes)),
        disk_(cache::disk_cache::open(s)) {}
  // Every owner drops this backend's launchers before its memory and device go.
  ~device_backend() override {
    std::vector<std::weak_ptr<launcher_owner>> owners;
    {
      std::lock_guard lock(owners_mutex_);
      owners.swap(owners_);
    }
    for (const auto& o : owners) {
      if (const auto owner = o.lock()) owner->drop(id_);
    }
  }
  device_backend(const device_backend&) = delete;
  device_backend& operator=(const device_backend&) = delete;

  // Identifies this backend object for as long as the program runs (never reused, unlike an
  // address): launchers are kept per backend.
  std::uint64_t id() const { return id_; }

  virtual std::string describe() const = 0;
  virtual strategy default_strategy() const = 0;
  // For loops that reduce into a global.
  virtual strategy default_reduction_strategy() const = 0;
  // The strategies an autotuned loop times (exec/device/autotune.hpp), the defaults first.
  virtual std::vector<strategy> tuning_strategies() const { return {default_strategy(), default_reduction_strategy()}; }
  // The dialect of its sources (codegen/cuda.hpp, codegen/opencl.hpp).
  virtual const codegen::dialect& dialect() const = 0;
  // Everything a binary built here depends on besides its source.
  virtual const cache::device_signature& signature() const = 0;
  virtual ir::device_facts facts() const = 0;

  // Checks that the device can run the source (features, block size), then compiles it.
  virtual std::unique_ptr<launcher> build(const codegen::kernel_source& source) = 0;
  // A launcher from a record built for a device with this signature.
  virtual std::unique_ptr<launcher> load(const cache::kernel_record& record) = 0;
  // Whether a launcher's record is better taken after its first launch: PoCL compiles a
  // kernel's work-group function at the first launch, and a binary read before it makes every
  // process that loads it compile that again (docs/performance.md, Disk cache, first loop of a
  // fresh process).
  virtual bool records_after_first_launch() const { return false; }

  // What the runtime it opened for was told.
  const parloop::settings& settings() const { return settings_; }
  // Partials and counters of global reductions, kept between launches.
  exec::reduction_scratch& scratch() { return scratch_; }
  // How this backend's kernels are written (index checks on or off, how dats lie), fixed when
  // it opens.
  const ir::source_options& codegen_options() const { return options_; }
  // How its loops that name none keep combining writes through maps apart: PARLOOP_CONFLICTS
  // when it opened, else the device's own way.
  conflicts default_conflicts() const { return conflicts_; }
  // The disk cache its kernels are kept in, as its settings say; null for none.
  const std::shared_ptr<const cache::disk_cache>& disk() const { return disk_; }
  // The record of the index checks, and where the host looks at it.
  exec::index_errors& index_errors() { return index_errors_; }
  // The dats' and globals' buffers and copies are the backend's memory's (memory.hpp), on the
  // queue its launches go to.
  std::unique_ptr<device_buffer> allocate(std::size_t bytes) final { return memory().allocate(bytes); }
  void upload(device_buffer& dst, const void* src, std::size_t bytes) final { memory().upload(dst, src, bytes); }
  void download(const device_buffer& src, void* dst, std::size_t bytes) final { memory().download(src, dst, bytes); }
  void download_later(const device_buffer& src, void* dst, std::size_t bytes) final {
    memory().download_later(src, dst, bytes);
  }
  void wait() final { memory().wait(); }

  // The index checks' record travels back with the results, in the same wait.
  void read_back(const device_buffer& src, void* dst, std::size_t bytes) final {
    index_errors_.fetch(*this);
    download(src, dst, bytes);
    index_errors_.report(*this);
  }
  void synchronize() final {
    index_errors_.fetch(*this);
    wait();
    index_errors_.report(*this);
  }

  // Registers an owner of this backend's launchers, to be told when the backend closes.
  void adopt(const std::shared_ptr<launcher_owner>& owner) {
    std::lock_guard lock(owners_mutex_);
    std::erase_if(owners_, [](const std::weak_ptr<launcher_owner>& o) { return o.expired(); });
    const bool known = std::any_of(owners_.begin(), owners_.end(),
                                   [&](const std::weak_ptr<launcher_owner>& o) { return o.lock() == owner; });
    if (!known) owners_.push_back(owner);
  }

 protected:
  virtual device_memory& memory() = 0;

 private:
  std::uint64_t id_;
  parloop::settings settings_;
  ir::source_options options_;
  conflicts conflicts_;
  std::shared_ptr<const cache::disk_cache> disk_;
  exec::reduction_scratch scratch_;
  exec::index_errors index_errors_;
  std::mutex owners_mutex_;
  std::vector<std::weak_ptr<launcher_owner>> owners_;
};

}  // namespace parloop::detail

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// Makes `state` the state of a runtime on `backend`: what a backend's open does.
inline void attach(runtime_state& state, std::shared_ptr<device_backend> backend) {
  apply(state, backend->settings());
  state.kind = backend->signature().backend;
  state.memory = backend.get();
  state.device_name = backend->describe();
  state.default_strategy = backend->default_strategy();
  state.reduction_strategy = backend->default_reduction_strategy();
  state.dats = backend->codegen_options().dats;
  state.default_conflicts = backend->default_conflicts();
  state.backend = std::move(backend);
}

// A backend's status: available unless `check` throws backend_unavailable, whose message is the
// reason; `check` returns whether the device it would open is a CPU. `requested` says whether
// the settings name a device of this backend.
template <class Check>
backend_status status_with(backend_kind kind, bool requested, Check&& check) {
  try {
    const bool cpu = check();
    return {kind, true, "", requested, cpu};
  } catch (const backend_unavailable& e) {
    return {kind, false, e.message(), requested};
  }
}

// A backend's open: `make` makes the backend (or throws backend_unavailable, whose message is
// returned as the reason), and `state` becomes a runtime on it.
template <class Make>
std::string open_with(runtime_state& state, Make&& make) {
  std::shared_ptr<device_backend> backend;
  try {
    backend = make();
  } catch (const backend_unavailable& e) {
    return e.message();
  }
  attach(state, std::move(backend));
  return {};
}

// A runtime on a backend made by hand (a test's device with features removed, a fake one).
inline Runtime runtime_on(std::shared_ptr<device_backend> backend) {
  auto state = std::make_shared<runtime_state>();
  attach(*state, std::move(backend));
  return Runtime(std::move(state));
}

}  // namespace parloop::detail

PARLOOP_COLD_END
