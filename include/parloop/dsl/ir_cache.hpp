// SPDX-License-Identifier: MIT
// The IR a kernel has produced, one per argument signature, made once and shared by copies.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <typeindex>
#include <utility>
#include <vector>

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

class ir_cache {
 public:
  // The IR for this signature: the type of the argument pack plus the parameters (which
  // hold what the types do not fix: arities, shared dats and maps). `make` runs on a miss.
  template <class Make>
  std::shared_ptr<const ir::kernel> get(std::type_index signature, std::vector<ir::param> params, Make&& make) {
    std::lock_guard lock(mutex_);
    for (const entry& e : entries_) {
      if (e.signature == signature && e.params == params) return e.ir;
    }
    auto ir = std::make_shared<const ir::kernel>(std::forward<Make>(make)());
    made_.fetch_add(1);
    entries_.push_back({signature, std::move(params), ir});
    if (const ir_observer observer = ir_observer_slot().load()) observer(*ir);
    return ir;
  }
  // How many IRs have been made: a traced kernel's trace count.
  std::uint64_t made() const { return made_.load(); }

 private:
  struct entry {
    std::type_index signature;
    std::vector<ir::param> params;
    std::shared_ptr<const ir::kernel> ir;
  };
  std::mutex mutex_;
  std::vector<entry> entries_;
  std::atomic<std::uint64_t> made_{0};
};

}  // namespace parloop::detail
