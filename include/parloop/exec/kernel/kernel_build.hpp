// SPDX-License-Identifier: MIT
// One kernel made ready on one backend, the steps the pipeline (exec/kernel/kernel_pipeline.hpp) and
// the agreement between ranks (exec/distributed/agreement.hpp) share: the source a strategy makes, the key
// material it is stored under, a compile, and a load from the disk cache's entry.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "parloop/config.hpp"
#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/conflicts.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/kernel/dump_source.hpp"
#include "parloop/exec/kernel/log.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The source of `k` for `device`, launched with strategy `s` and combining writes kept apart so;
// dumped where its settings ask.
inline codegen::kernel_source source_for(const ir::kernel& k, device_backend& device, const strategy& s,
                                         conflicts writes) {
  ir::source_options options = device.codegen_options();
  options.writes = writes;
  codegen::kernel_source source = codegen::make_source(k, device.dialect(), s, options);
  if (!device.settings().dump_source.empty()) dump_source(source.code, device.settings().dump_source);
  return source;
}

// Everything that changes the binary of `source` on `device`: what its disk entry is keyed by.
inline cache::key_material material_of(const device_backend& device, const codegen::kernel_source& source) {
  return {.signature = device.signature(),
          .source = source.code.text,
          .grid = source.grid,
          .block = source.block,
          .layout = source.layout};
}

// The backend's build of `source`, counted and, with PARLOOP_LOG=info, said.
inline std::unique_ptr<launcher> compile(device_backend& device, const codegen::kernel_source& source,
                                         const std::string& name, kernel_stats& stats) {
  const bool said = log_info();
  // Said before, so that a long compile shows what it is doing.
  if (said) log_line("compiling kernel '{}' for {}", name, device.describe());
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<launcher> built = device.build(source);
  const std::uint64_t took = nanoseconds_since(start);
  stats.compiles.fetch_add(1);
  stats.compile_ns.fetch_add(took);
  if (said) log_line("compiled kernel '{}' in {:.1f} ms", name, static_cast<double>(took) * 1e-6);
  return built;
}

// A launcher from the entry of `key`, or null: a device that refuses the stored binary (a
// driver update the signature did not see) is a miss like any other.
inline std::unique_ptr<launcher> load_from(device_backend& device, const cache::disk_cache& disk,
                                           const cache::key_material& material, const std::string& key,
                                           const std::string& name, kernel_stats& stats) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<cache::kernel_record> record = disk.load(material, key);
  if (!record) return nullptr;
  try {
    std::unique_ptr<launcher> loaded = device.load(*record);
    const std::uint64_t took = nanoseconds_since(start);
    stats.disk_hits.fetch_add(1);
    stats.load_ns.fetch_add(took);
    if (log_info()) {
      log_line("loaded kernel '{}' from the disk cache ({}) in {:.1f} ms", name,
               disk.path_of(material.signature.backend, key).string(), static_cast<double>(took) * 1e-6);
    }
    return loaded;
  } catch (const error&) {
    return nullptr;
  }
}

}  // namespace parloop::detail

PARLOOP_COLD_END
