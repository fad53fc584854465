// SPDX-License-Identifier: MIT
// OpenCL devices and a context on one of them.
#pragma once

#include <string>
#include <vector>

#include "parloop/backend/opencl/cl.hpp"
#include "parloop/error.hpp"

namespace parloop::backend::opencl {

struct device {
  cl_platform_id platform;
  cl_device_id id;
  std::string platform_name;
  std::string name;
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
}  // namespace detail

// Every device of every platform, in platform order. A machine without an OpenCL platform
// (no ICD installed) gives an empty list, not an error.
inline std::vector<device> devices() {
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0) return {};
  std::vector<cl_platform_id> platforms(n_platforms);
  clGetPlatformIDs(n_platforms, platforms.data(), nullptr);
  std::vector<device> out;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ids(n);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
    const std::string platform_name = detail::info_string(clGetPlatformInfo, p, CL_PLATFORM_NAME);
    for (cl_device_id id : ids) out.push_back({p, id, platform_name, detail::info_string(clGetDeviceInfo, id, CL_DEVICE_NAME)});
  }
  return out;
}

// A context on one device.
class context {
 public:
  explicit context(const device& d) : device_(d) {
    cl_int status = CL_SUCCESS;
    cl_device_id id = d.id;
    handle_ = context_handle(clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status));
    check(status, "clCreateContext");
  }

  // The first device there is: enough for compiling.
  static context first() {
    const std::vector<opencl::device> all = devices();
    if (all.empty()) throw backend_unavailable("OpenCL: no platform with a device is installed");
    return context(all.front());
  }

  cl_context get() const { return handle_.get(); }
  const opencl::device& device() const { return device_; }

 private:
  opencl::device device_;
  context_handle handle_;
};

}  // namespace parloop::backend::opencl
