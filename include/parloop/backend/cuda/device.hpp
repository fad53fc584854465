// SPDX-License-Identifier: MIT
// CUDA devices: what each can do, listed once per process through the driver (loaded at run
// time), and the one the environment selects (PARLOOP_CUDA_DEVICE, else PARLOOP_DEVICE: an index
// or a case-insensitive part of the name; unset, the first).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/cuda/driver.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_choice.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::cuda {

struct device {
  int index;
  CUdevice id;
  std::string name;
  int major;  // compute capability
  int minor;
  int multiprocessors;
  int max_threads_per_block;
  std::size_t shared_memory_per_block;  // bytes a block may use without opting in to more
  std::size_t total_memory;
  int driver_version;  // cuDriverGetVersion: 13000 is CUDA 13.0

  // The architecture NVRTC compiles for: sm_90 for compute capability 9.0.
  std::string arch() const { return parloop::detail::format("sm_{}{}", major, minor); }
  // The index PARLOOP_CUDA_DEVICE accepts, and the name.
  std::string describe() const {
    return parloop::detail::format("{} {} ({}, {} SMs, {:.0f} GiB)", index, name, arch(), multiprocessors,
                                   static_cast<double>(total_memory) / (1024.0 * 1024.0 * 1024.0));
  }
};

// Every device the driver sees, asked now. Throws backend_unavailable, with the reason, where
// there is no driver; a driver without devices gives an empty list.
inline std::vector<device> list_devices() {
  const driver& d = driver::get();
  int count = 0;
  d.check(d.device_get_count(&count), "cuDeviceGetCount");
  int version = 0;
  d.check(d.driver_get_version(&version), "cuDriverGetVersion");
  std::vector<device> out;
  for (int i = 0; i < count; ++i) {
    CUdevice id = 0;
    d.check(d.device_get(&id, i), "cuDeviceGet");
    const auto attribute = [&](CUdevice_attribute a) {
      int v = 0;
      d.check(d.device_get_attribute(&v, a, id), "cuDeviceGetAttribute");
      return v;
    };
    char name[256] = {};
    d.check(d.device_get_name(name, static_cast<int>(sizeof name), id), "cuDeviceGetName");
    std::size_t memory = 0;
    d.check(d.device_total_mem(&memory, id), "cuDeviceTotalMem");
    out.push_back(
        {i, id, name, attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
         attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
         attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
         static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)), memory, version});
  }
  return out;
}

// The devices, listed once per process (thread-safe): a device list does not change while a
// program runs. Where there is no driver, every call throws the same reason.
inline const std::vector<device>& devices() {
  static const std::vector<device> all = list_devices();
  return all;
}

// The device a selector names: an index, or a case-insensitive part of the name (a number that
// is no device's index may be part of a name: "4090"); an empty selector takes the first, or in
// an MPI job that of the process's local rank modulo the devices (exec::local_rank()). Throws
// backend_unavailable, listing the devices, when nothing matches.
inline device select_device(const std::vector<device>& all, const std::string& selector, int local_rank) {
  if (all.empty()) throw backend_unavailable("CUDA: the driver sees no device");
  if (selector.empty()) return all[exec::device_of_local_rank(all.size(), local_rank)];
  int index = -1;
  char rest = 0;
  if (std::sscanf(selector.c_str(), "%d%c", &index, &rest) == 1) {
    for (const device& d : all) {
      if (d.index == index) return d;
    }
  }
  for (const device& d : all) {
    if (exec::name_contains(d.name, selector)) return d;
  }
  std::string list;
  for (const device& d : all) list += "\n  " + d.describe();
  throw backend_unavailable(
      parloop::detail::format("CUDA: no device is numbered or named '{}'; the devices are:{}", selector, list));
}

// The device `s` selects: PARLOOP_CUDA_DEVICE, else PARLOOP_DEVICE, else the local rank's
// (exec::device_selected).
inline device chosen_device(const settings& s) {
  return exec::device_selected(devices(), s.device_for(backend_kind::cuda), select_device);
}

// The device's primary context, retained, and one stream of this context's own: work on it runs
// in order. The driver's calls act on the calling thread's current context, so every entry
// point makes this one current first (cheap when it already is).
class context {
 public:
  explicit context(const device& d) : device_(d), driver_(driver::get()) {
    driver_.check(driver_.primary_ctx_retain(&context_, d.id), "cuDevicePrimaryCtxRetain");
    make_current();
    const CUresult status = driver_.stream_create(&stream_, CU_STREAM_NON_BLOCKING);
    if (status != CUDA_SUCCESS) {
      driver_.primary_ctx_release(d.id);
      driver_.check(status, "cuStreamCreate");
    }
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  // A destructor cannot report a failure: the stream goes with the context either way.
  ~context() {
    make_current_quietly();
    driver_.stream_destroy(stream_);
    driver_.primary_ctx_release(device_.id);
  }

  void make_current() const { driver_.check(driver_.ctx_set_current(context_), "cuCtxSetCurrent"); }
  // For destructors, which cannot report a failure.
  void make_current_quietly() const noexcept { driver_.ctx_set_current(context_); }
  const device& dev() const { return device_; }
  const driver& api() const { return driver_; }
  CUstream stream() const { return stream_; }

 private:
  device device_;
  const driver& driver_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace parloop::backend::cuda

PARLOOP_COLD_END
