// SPDX-License-Identifier: MIT
// What a compiled binary depends on besides its source: the backend, the device, its driver,
// the compiler and its options. A backend reports it; the disk cache keys on it.
#pragma once

#include <string>

#include <cereal/cereal.hpp>

#include "parloop/config.hpp"
#include "parloop/cache/bounded.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

struct device_signature {
  backend_kind backend = backend_kind::host;
  std::string platform;      // OpenCL: platform name and version
  std::string device;        // the device's name
  std::string driver;        // the driver's version
  std::string compiler;      // the compiler and its version (OpenCL C version, NVRTC version)
  std::string architecture;  // what the binary's code is for (sm_90; the OpenCL device version)
  std::string options;       // every compiler option

  friend bool operator==(const device_signature&, const device_signature&) = default;
};

inline std::string to_string(const device_signature& s) {
  return parloop::detail::format(
      "{} | platform: {} | device: {} | driver: {} | compiler: {} | architecture: {} | options: '{}'",
      backend_name(s.backend), s.platform, s.device, s.driver, s.compiler, s.architecture, s.options);
}

template <class Archive>
void save(Archive& archive, const device_signature& s) {
  archive(static_cast<int>(s.backend), bounded(s.platform), bounded(s.device), bounded(s.driver), bounded(s.compiler),
          bounded(s.architecture), bounded(s.options));
}
template <class Archive>
void load(Archive& archive, device_signature& s) {
  int backend = 0;
  archive(backend, bounded(s.platform), bounded(s.device), bounded(s.driver), bounded(s.compiler),
          bounded(s.architecture), bounded(s.options));
  if (backend < 0 || backend > static_cast<int>(backend_kind::threads)) {
    throw cereal::Exception(parloop::detail::format("device signature: unknown backend {}", backend));
  }
  s.backend = static_cast<backend_kind>(backend);
}

}  // namespace parloop::cache

PARLOOP_COLD_END
