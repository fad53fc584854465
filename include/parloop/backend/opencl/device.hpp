// SPDX-License-Identifier: MIT
// OpenCL devices: listing, what each can do, choosing one, and a context with a queue on it.
#pragma once

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/opencl/cl.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_choice.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::opencl {

struct device {
  cl_platform_id platform;
  cl_device_id id;
  int platform_index;
  int device_index;
  std::string platform_name;
  std::string platform_version;  // CL_PLATFORM_VERSION
  std::string name;
  std::string version;         // CL_DEVICE_VERSION, e.g. "OpenCL 3.0 PoCL ..."
  std::string driver_version;  // CL_DRIVER_VERSION
  std::string c_version;       // CL_DEVICE_OPENCL_C_VERSION: the compiler's language
  std::string extensions;      // CL_DEVICE_EXTENSIONS, space-separated
  bool is_gpu;
  int compute_units;
  std::size_t max_work_group_size;
  std::size_t max_allocation;
  std::size_t local_memory;  // CL_DEVICE_LOCAL_MEM_SIZE: bytes of local memory per work-group

  bool has_extension(const std::string& e) const {
    return (" " + extensions + " ").find(" " + e + " ") != std::string::npos;
  }
  bool has_fp64() const { return has_extension("cl_khr_fp64"); }
  bool has_int64_atomics() const { return has_extension("cl_khr_int64_base_atomics"); }
  bool has_int64_extended_atomics() const { return has_extension("cl_khr_int64_extended_atomics"); }
  // "platform:device" as PARLOOP_OPENCL_DEVICE accepts it, and the names.
  std::string describe() const {
    return parloop::detail::format("{}:{} {} ({})", platform_index, device_index, name, platform_name);
  }
};

namespace detail {
template <class Get, class Object>
std::string info_string(Get get, Object object, cl_uint what) {
  std::size_t size = 0;
  if (get(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  get(object, what, size, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
template <class T>
T device_info(cl_device_id id, cl_device_info what) {
  T value{};
  clGetDeviceInfo(id, what, sizeof value, &value, nullptr);
  return value;
}
}  // namespace detail

// Every device of every platform, in platform order, asked of the OpenCL implementation now.
// A machine without an OpenCL platform (no ICD installed) gives an empty list, not an error.
inline std::vector<device> list_devices() {
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0) return {};
  std::vector<cl_platform_id> platforms(n_platforms);
  clGetPlatformIDs(n_platforms, platforms.data(), nullptr);
  std::vector<device> out;
  for (cl_uint p = 0; p < n_platforms; ++p) {
    cl_uint n = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ids(n);
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
    const std::string platform_name = detail::info_string(clGetPlatformInfo, platforms[p], CL_PLATFORM_NAME);
    const std::string platform_version = detail::info_string(clGetPlatformInfo, platforms[p], CL_PLATFORM_VERSION);
    for (cl_uint d = 0; d < n; ++d) {
      const cl_device_id id = ids[d];
      out.push_back({platforms[p], id, static_cast<int>(p), static_cast<int>(d), platform_name, platform_version,
                     detail::info_string(clGetDeviceInfo, id, CL_DEVICE_NAME),
                     detail::info_string(clGetDeviceInfo, id, CL_DEVICE_VERSION),
                     detail::info_string(clGetDeviceInfo, id, CL_DRIVER_VERSION),
                     detail::info_string(clGetDeviceInfo, id, CL_DEVICE_OPENCL_C_VERSION),
                     detail::info_string(clGetDeviceInfo, id, CL_DEVICE_EXTENSIONS),
                     (detail::device_info<cl_device_type>(id, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0,
                     static_cast<int>(detail::device_info<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS)),
                     detail::device_info<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE),
                     static_cast<std::size_t>(detail::device_info<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE)),
                     static_cast<std::size_t>(detail::device_info<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE))});
    }
  }
  return out;
}

// The devices, listed once per process (thread-safe): some implementations (PoCL) crash when
// threads list devices at once, and a device list does not change while a program runs.
inline const std::vector<device>& devices() {
  static const std::vector<device> all = list_devices();
  return all;
}

// The device a selector names: "platform:device" indices, or a case-insensitive substring of
// the device's or platform's name. An empty selector takes the first GPU (in an MPI job, that of
// the process's local rank modulo the GPUs: exec::local_rank()), else the first device. Throws
// backend_unavailable, listing the devices, when nothing matches.
inline device select_device(const std::vector<device>& all, const std::string& selector, int local_rank) {
  if (all.empty()) throw backend_unavailable("OpenCL: no platform with a device is installed");
  const auto list = [&] {
    std::string s;
    for (const device& d : all) s += "\n  " + d.describe();
    return s;
  };
  if (selector.empty()) {
    std::vector<const device*> gpus;
    for (const device& d : all) {
      if (d.is_gpu) gpus.push_back(&d);
    }
    return gpus.empty() ? all.front() : *gpus[exec::device_of_local_rank(gpus.size(), local_rank)];
  }
  int p = -1, d = -1;
  char rest = 0;
  if (std::sscanf(selector.c_str(), "%d:%d%c", &p, &d, &rest) == 2) {
    for (const device& dev : all) {
      if (dev.platform_index == p && dev.device_index == d) return dev;
    }
    throw backend_unavailable(parloop::detail::format("OpenCL: no device {}:{}; the devices are:{}", p, d, list()));
  }
  for (const device& dev : all) {
    if (exec::name_contains(dev.name, selector) || exec::name_contains(dev.platform_name, selector)) return dev;
  }
  throw backend_unavailable(
      parloop::detail::format("OpenCL: no device matches '{}'; the devices are:{}", selector, list()));
}

// The device `s` selects: PARLOOP_OPENCL_DEVICE, else PARLOOP_DEVICE, else the local rank's GPU
// (exec::device_selected).
inline device chosen_device(const settings& s) {
  return exec::device_selected(devices(), s.device_for(backend_kind::opencl), select_device);
}

using queue_handle = handle<cl_command_queue, clReleaseCommandQueue>;

// The process's context on device `id`, made at its first use and kept for the process's life,
// retained once more for the caller. Runtimes opened one after another share it, as the CUDA
// backend's share a device's primary context: a context is costly to make, and PoCL loads its
// kernel library into each context it compiles in, which was half of every program's build when
// each runtime made its own (docs/performance.md).
inline cl_context shared_context(cl_device_id id) {
  static std::mutex mutex;
  // Never freed: released by a static destructor at exit, a context could outlive the
  // implementation's own statics.
  static auto* const contexts = new std::map<cl_device_id, cl_context>;
  const std::lock_guard lock(mutex);
  auto found = contexts->find(id);
  if (found == contexts->end()) {
    cl_int status = CL_SUCCESS;
    const cl_context made = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    found = contexts->emplace(id, made).first;
  }
  check(clRetainContext(found->second), "clRetainContext");
  return found->second;
}

// The device's shared context and an in-order queue of its own on it.
class context {
 public:
  explicit context(const device& d) : device_(d), handle_(shared_context(d.id)) {
    cl_int status = CL_SUCCESS;
    queue_ = queue_handle(clCreateCommandQueue(handle_.get(), d.id, 0, &status));
    check(status, "clCreateCommandQueue");
  }

  // The first device there is: enough for compiling.
  static context first() {
    const std::vector<opencl::device>& all = devices();
    if (all.empty()) throw backend_unavailable("OpenCL: no platform with a device is installed");
    return context(all.front());
  }

  cl_context get() const { return handle_.get(); }
  cl_command_queue queue() const { return queue_.get(); }
  const opencl::device& device() const { return device_; }

 private:
  opencl::device device_;
  context_handle handle_;
  queue_handle queue_;
};

}  // namespace parloop::backend::opencl

PARLOOP_COLD_END
