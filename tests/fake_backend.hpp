// SPDX-License-Identifier: MIT
// A device backend that is host memory and runs nothing: enough to check what moves between
// host and device, what is built and loaded, and which thread waits for which.
#pragma once

#include <atomic>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <parloop/codegen/opencl.hpp>
#include <parloop/exec/device/device_backend.hpp>
#include <parloop/parloop.hpp>

namespace parloop_test {

namespace pl = parloop;

struct fake_buffer : pl::detail::device_buffer {
  std::vector<unsigned char> bytes;
};

class fake_launcher final : public pl::detail::launcher {
 public:
  fake_launcher(std::string entry, pl::ir::grid_size_functor grid, int block, std::vector<pl::ir::kernel_buffer> layout,
                std::atomic<int>& enqueues)
      : launcher(std::move(grid), block, std::move(layout)), entry_(std::move(entry)), enqueues_(&enqueues) {}

  void enqueue(pl::index_t, pl::index_t, std::int64_t, std::span<const pl::detail::device_buffer* const>,
               std::span<const int>) override {
    enqueues_->fetch_add(1);
    launched_ = true;
  }
  // The binary says whether this launcher had been launched when it was asked for: as PoCL's
  // holds a work-group function only then.
  pl::cache::kernel_record record() const override {
    const std::string binary = entry_ + (launched_ ? "+launched" : "");
    return {pl::backend_kind::opencl,
            pl::cache::binary_format::opencl_program,
            entry_,
            std::vector<unsigned char>(binary.begin(), binary.end()),
            grid(),
            block(),
            std::vector<pl::ir::kernel_buffer>(layout().begin(), layout().end())};
  }

 private:
  std::string entry_;
  std::atomic<int>* enqueues_;
  std::atomic<bool> launched_{false};
};

// Host memory that counts allocations and waits.
class fake_memory final : public pl::detail::device_memory {
 public:
  std::unique_ptr<pl::detail::device_buffer> allocate(std::size_t bytes) override {
    if (out_of_memory) throw pl::error("fake device: out of memory");
    auto b = std::make_unique<fake_buffer>();
    b->bytes.resize(bytes);
    allocations.fetch_add(1);
    return b;
  }
  void upload(pl::detail::device_buffer& dst, const void* src, std::size_t bytes) override {
    std::memcpy(static_cast<fake_buffer&>(dst).bytes.data(), src, bytes);
  }
  void download(const pl::detail::device_buffer& src, void* dst, std::size_t bytes) override {
    std::memcpy(dst, static_cast<const fake_buffer&>(src).bytes.data(), bytes);
  }
  void wait() override { waits.fetch_add(1); }

  std::atomic<int> allocations{0}, waits{0};
  bool out_of_memory = false;  // every allocation throws
};

class fake_backend final : public pl::detail::device_backend {
 public:
  explicit fake_backend(pl::detail::device_defaults defaults = pl::detail::gpu_defaults,
                        const pl::settings& s = pl::settings::from_environment())
      : pl::detail::device_backend(s, defaults) {}
  std::string describe() const override { return "fake"; }
  pl::strategy default_strategy() const override { return pl::split_n_across_workgroups{}; }
  pl::strategy default_reduction_strategy() const override { return pl::grid_stride{}; }
  const pl::codegen::dialect& dialect() const override {
    static const pl::codegen::opencl_dialect opencl;
    return opencl;
  }
  const pl::cache::device_signature& signature() const override { return signature_; }
  pl::ir::device_facts facts() const override { return {4}; }

  // While `gate` is set, a build announces itself in `waiting` and waits for it to be released.
  std::unique_ptr<pl::detail::launcher> build(const pl::codegen::kernel_source& source) override {
    builds.fetch_add(1);
    last_grid = source.grid.to_string();
    if (gate.valid()) {
      waiting.fetch_add(1);
      gate.wait();
    }
    return std::make_unique<fake_launcher>(source.code.entry, source.grid, source.block, source.layout, enqueues);
  }
  std::unique_ptr<pl::detail::launcher> load(const pl::cache::kernel_record& r) override {
    loaded_binaries.emplace_back(r.binary.begin(), r.binary.end());
    return std::make_unique<fake_launcher>(r.entry, r.grid, r.block, r.layout, enqueues);
  }
  bool records_after_first_launch() const override { return record_after_first_launch; }

  fake_memory copies;
  std::atomic<int> builds{0}, enqueues{0}, waiting{0};
  bool record_after_first_launch = false;
  std::vector<std::string> loaded_binaries;  // of the records loaded, in order
  std::shared_future<void> gate;
  std::string last_grid;  // the grid-size functor of the last build, as a formula

 private:
  pl::detail::device_memory& memory() override { return copies; }

  pl::cache::device_signature signature_{pl::backend_kind::opencl, "fake", "fake", "0", "none", "none", ""};
};

// A runtime on `backend` (which may outlive it: dats and globals use its memory).
inline pl::Runtime runtime_on(std::shared_ptr<fake_backend> backend) {
  return pl::detail::runtime_on(std::move(backend));
}

}  // namespace parloop_test
