// SPDX-License-Identifier: MIT
// A disk cache entry of CUDA rebuilt from its stored source with NVRTC, if the NVRTC here is the
// one its signature names, and compared with the stored binary (cache/rebuild_check.hpp). A
// CUBIN or PTX depends on NVRTC and its options only, not on the GPU: any machine with that NVRTC
// checks it, one without a GPU too.
#pragma once

#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/backend/cuda/compile.hpp"
#include "parloop/backend/cuda/nvrtc.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/rebuild_check.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::cuda {

inline cache::rebuild_verdict check_rebuild(const cache::key_material& material, const cache::kernel_record& record) {
  const nvrtc* api = nullptr;
  try {
    api = &nvrtc::get();
  } catch (const backend_unavailable& e) {
    return {cache::rebuild_outcome::not_here, e.what()};
  }
  const std::string here = api->name();
  if (material.signature.compiler != here) {
    return {cache::rebuild_outcome::not_here,
            parloop::detail::format("built by {}, and this machine has {}", material.signature.compiler, here)};
  }
  // The target whose options the signature names, among those this NVRTC compiles for.
  for (const int arch : api->supported_archs()) {
    for (const bool ptx : {false, true}) {
      for (const bool fast_math : {false, true}) {
        const target t{arch, ptx, fast_math};
        if (t.options_text() != material.signature.options) continue;
        if (t.format() != record.format) {
          return {cache::rebuild_outcome::differs,
                  parloop::detail::format("its options make {}, and it holds another format", ptx ? "PTX" : "a CUBIN")};
        }
        const codegen::generated_source source{
            codegen::dialect_kind::cuda, record.entry, record.entry, material.source, {}, {}};
        return cache::compare_with_rebuilt(record.binary, [&] { return build(source, t).binary; });
      }
    }
  }
  return {cache::rebuild_outcome::not_here,
          parloop::detail::format("{} has no target with the options '{}'", here, material.signature.options)};
}

}  // namespace parloop::backend::cuda

PARLOOP_COLD_END
