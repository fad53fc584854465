// SPDX-License-Identifier: MIT
// A disk cache entry of OpenCL rebuilt from its stored source on the device of its signature, if
// that device is here, and compared with the stored binary (cache/rebuild_check.hpp). Only a
// binary equal to the rebuilt one is a verdict: an OpenCL entry is never shown to differ.
#pragma once

#include <string>

#include "parloop/config.hpp"
#include "parloop/backend/opencl/backend.hpp"
#include "parloop/backend/opencl/compile.hpp"
#include "parloop/backend/opencl/device.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/rebuild_check.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::backend::opencl {

// The signature names the platform, device, driver, compiler and options: the entry is rebuilt
// on the device here whose signature with those options is the entry's, and only there.
inline cache::rebuild_verdict check_rebuild(const cache::key_material& material, const cache::kernel_record& record) {
  for (const device& d : devices()) {
    if (signature_of(d, material.signature.options) != material.signature) continue;
    const context ctx(d);
    const codegen::generated_source source{
        codegen::dialect_kind::opencl, record.entry, record.entry, material.source, {}, {}};
    return cache::compare_with_rebuilt(
        record.binary, [&] { return program_binary(build_program(ctx, source, material.signature.options)); },
        "an OpenCL program's binary is read after its first launch and may hold what the launch built (PoCL's "
        "work-group function), which a rebuild does not");
  }
  return {cache::rebuild_outcome::not_here,
          parloop::detail::format("no OpenCL device here is {} ({}, driver {})", material.signature.device,
                                  material.signature.platform, material.signature.driver)};
}

}  // namespace parloop::backend::opencl

PARLOOP_COLD_END
