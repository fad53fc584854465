// SPDX-License-Identifier: MIT
// The OpenCL component's headers, compiled by a consumer.
#include <parloop/backend/opencl/compile.hpp>

std::size_t opencl_device_count() { return parloop::backend::opencl::devices().size(); }
