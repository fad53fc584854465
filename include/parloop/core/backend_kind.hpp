// SPDX-License-Identifier: MIT
// The backends parloop knows, by name.
#pragma once

#include <string_view>

namespace parloop {

enum class backend_kind { host, opencl, cuda };

constexpr std::string_view backend_name(backend_kind b) {
  switch (b) {
    case backend_kind::host: return "host";
    case backend_kind::opencl: return "opencl";
    case backend_kind::cuda: return "cuda";
  }
  return "?";
}

}  // namespace parloop
