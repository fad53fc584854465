// SPDX-License-Identifier: MIT
// What a device backend provides: memory for dats and globals, compiling a kernel's IR for
// a launch strategy, and launching it. par_loop talks to devices only through this.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "parloop/config.hpp"
#include "parloop/core/access.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/exec/strategy.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

// A kernel compiled for one device and strategy.
class device_kernel {
 public:
  virtual ~device_kernel() = default;
};

// A global reduced by a launch: the kernel leaves partial results, which the backend
// combines with the values at `host` (the global's host copy, current before the launch).
struct reduction_target {
  access mode;
  ir::scalar_type type;
  int dim;
  void* host;
};

class device_backend : public device_memory {
 public:
  device_backend() : id_(next_id().fetch_add(1)) {}

  // Identifies this backend object for as long as the program runs (never reused, unlike
  // an address): compiled kernels are kept per backend.
  std::uint64_t id() const { return id_; }

  virtual std::string describe() const = 0;
  virtual strategy default_strategy() const = 0;
  virtual std::shared_ptr<const device_kernel> compile(const ir::kernel& k, const strategy& s) = 0;
  // Runs elements [start, end). `buffers` are the kernel's buffers in codegen::buffers()
  // order up to the partials, which the backend provides itself for `reductions` (in order).
  virtual void launch(const device_kernel& k, index_t start, index_t end, std::span<const device_buffer* const> buffers,
                      std::span<const reduction_target> reductions) = 0;

 private:
  static std::atomic<std::uint64_t>& next_id() {
    static std::atomic<std::uint64_t> next{1};
    return next;
  }
  std::uint64_t id_;
};

}  // namespace parloop::detail
