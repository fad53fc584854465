// SPDX-License-Identifier: MIT
// The in-memory cache of a kernel: per argument signature, its IR, how its buffers bind, and
// what has been compiled from it per device and strategy. A repeated par_loop finds all of
// it with comparisons alone: no tracing, no source, no hashing, no allocation.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <typeindex>
#include <utility>
#include <vector>

#include "parloop/codegen/layout.hpp"
#include "parloop/core/device_backend.hpp"
#include "parloop/exec/strategy.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// Called with every IR made for the first time (tests compile each one with the real device
// compilers this way). Set before kernels run; null for none.
using ir_observer = void (*)(const ir::kernel&);
inline std::atomic<ir_observer>& ir_observer_slot() {
  static std::atomic<ir_observer> observer{nullptr};
  return observer;
}
inline void set_ir_observer(ir_observer observer) { ir_observer_slot().store(observer); }

// Which argument supplies one of the kernel's buffers (codegen::buffers(), partials aside).
struct binding {
  codegen::buffer_role role;
  int position;
};

struct signature_entry {
  struct compiled_kernel {
    std::uint64_t backend;
    strategy launch;
    std::shared_ptr<const device_kernel> kernel;
  };

  std::type_index signature;
  std::vector<ir::param> params;
  std::shared_ptr<const ir::kernel> ir;
  std::vector<binding> bindings;
  std::vector<compiled_kernel> compiled;
};

class kernel_cache {
 public:
  // The entry for this signature: the type of the argument pack plus the parameters (which
  // hold what the types do not fix: arities, shared dats and maps). `make` makes the IR on a miss.
  template <class Make>
  signature_entry& get(std::type_index signature, std::span<const ir::param> params, Make&& make) {
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_) {
      if (e->signature == signature && std::equal(e->params.begin(), e->params.end(), params.begin(), params.end())) {
        return *e;
      }
    }
    auto ir = std::make_shared<const ir::kernel>(std::forward<Make>(make)());
    traces_.fetch_add(1);
    auto e = std::make_unique<signature_entry>(
        signature_entry{signature, std::vector<ir::param>(params.begin(), params.end()), ir, bindings_of(*ir), {}});
    entries_.push_back(std::move(e));
    if (const ir_observer observer = ir_observer_slot().load()) observer(*ir);
    return *entries_.back();
  }

  // The entry's kernel compiled for a device and strategy, compiled on first use.
  const device_kernel& compiled(signature_entry& e, device_backend& device, const strategy& s) {
    std::lock_guard lock(mutex_);
    for (const auto& c : e.compiled) {
      if (c.backend == device.id() && c.launch == s) return *c.kernel;
    }
    auto kernel = device.compile(*e.ir, s);
    compiles_.fetch_add(1);
    e.compiled.push_back({device.id(), s, kernel});
    return *kernel;
  }

  void count_launch() { launches_.fetch_add(1, std::memory_order_relaxed); }

  std::uint64_t traces() const { return traces_.load(); }
  std::uint64_t compiles() const { return compiles_.load(); }
  std::uint64_t launches() const { return launches_.load(); }

 private:
  static std::vector<binding> bindings_of(const ir::kernel& k) {
    std::vector<binding> out;
    for (const codegen::kernel_buffer& b : codegen::buffers(k)) {
      if (b.role == codegen::buffer_role::partials) continue;
      for (std::size_t i = 0; i < k.params.size(); ++i) {
        const ir::param& p = k.params[i];
        if ((b.role == codegen::buffer_role::data && p.data == b.index && !codegen::is_global_reduction(p)) ||
            (b.role == codegen::buffer_role::map && p.map == b.index)) {
          out.push_back({b.role, static_cast<int>(i)});
          break;
        }
      }
    }
    return out;
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<signature_entry>> entries_;
  std::atomic<std::uint64_t> traces_{0};
  std::atomic<std::uint64_t> compiles_{0};
  std::atomic<std::uint64_t> launches_{0};
};

}  // namespace parloop::detail
