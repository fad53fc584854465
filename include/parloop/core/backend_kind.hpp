// SPDX-License-Identifier: MIT
// The backends parloop knows, by name. host and threads run the kernel's lambda on the CPU
// (one thread, or a pool of them); opencl and cuda run generated code on a device.
#pragma once

#include <string_view>

namespace parloop {

// Numbered as the disk cache's entries record them: a new backend goes last.
enum class backend_kind { host, opencl, cuda, threads };

// Whether the backend runs the kernel's lambda on the host's own memory: no device, no compile.
constexpr bool runs_lambdas(backend_kind b) { return b == backend_kind::host || b == backend_kind::threads; }

constexpr std::string_view backend_name(backend_kind b) {
  switch (b) {
    case backend_kind::host: return "host";
    case backend_kind::opencl: return "opencl";
    case backend_kind::cuda: return "cuda";
    case backend_kind::threads: return "threads";
  }
  return "?";
}

}  // namespace parloop
