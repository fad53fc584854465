// SPDX-License-Identifier: MIT
// A disk cache entry rebuilt from its stored source by the backend that made it, where this
// program has that backend and the machine its compiler (parloop-cache verify --rebuild).
#pragma once

#include <filesystem>
#include <string>

#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/rebuild_check.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/format.hpp"
#include "parloop/whole_file.hpp"
#if PARLOOP_HAVE_OPENCL
#include "parloop/backend/opencl/rebuild.hpp"
#endif
#if PARLOOP_HAVE_CUDA
#include "parloop/backend/cuda/rebuild.hpp"
#endif

namespace parloop::backend {

inline cache::rebuild_verdict check_rebuild(const std::filesystem::path& entry) {
  const auto bytes = parloop::detail::read_file(entry);
  if (!bytes) return {cache::rebuild_outcome::differs, "cannot be read"};
  const cache::decoded_entry decoded = cache::decode_entry(*bytes);
  if (!decoded.record) return {cache::rebuild_outcome::differs, decoded.problem};
  const cache::key_material& material = *decoded.material;
  const cache::kernel_record& record = *decoded.record;
  if (record.format == cache::binary_format::launch_choice) {
    return {cache::rebuild_outcome::not_comparable, "a launch autotuning chose, not a binary"};
  }
  switch (material.signature.backend) {
    case backend_kind::opencl:
#if PARLOOP_HAVE_OPENCL
      return opencl::check_rebuild(material, record);
#else
      break;
#endif
    case backend_kind::cuda:
#if PARLOOP_HAVE_CUDA
      return cuda::check_rebuild(material, record);
#else
      break;
#endif
    case backend_kind::host:
    case backend_kind::threads: break;
  }
  return {cache::rebuild_outcome::not_here, parloop::detail::format("this program was built without the {} backend",
                                                                    backend_name(material.signature.backend))};
}

}  // namespace parloop::backend
