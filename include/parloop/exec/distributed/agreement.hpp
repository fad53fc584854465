// SPDX-License-Identifier: MIT
// The ranks of a distributed loop agree on its kernel: one compiles or reads it, the others take
// its disk entry over the link, so that a job compiles each kernel once whether or not its ranks
// share a cache folder.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/codegen/kernel_source.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/device/device_backend.hpp"
#include "parloop/exec/kernel/kernel_build.hpp"
#include "parloop/exec/kernel/log.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

// On the holder of an agreement: sends the entry of the record `made()` gives, and returns the
// record -- or, where that throws, sends an empty entry, so that no rank waits for one, and
// throws on.
template <class Made>
cache::kernel_record send_entry(rank_link& link, int holder, const cache::key_material& material, Made&& made) {
  cache::kernel_record record;
  std::string bytes;
  try {
    record = made();
    bytes = cache::encode_entry(material, record);
  } catch (...) {
    std::string none;
    link.broadcast(none, holder);
    throw;
  }
  link.broadcast(bytes, holder);
  return record;
}

// The launcher of a distributed loop's kernel, agreed on by every rank (agreeing_on): where
// every rank has it in its disk cache, each loads its own; else the lowest rank that has it
// sends its entry to the others, or, where none has it, rank 0 compiles and sends it. Every
// rank makes the same collective calls here whatever it finds; a compile that fails is said to
// the others, which fail too. A rank that cannot use what arrives (another device: its key
// material differs) compiles for itself, after the last collective call. A rank that holds the
// kernel in memory already (`held`) takes part as one that has it, and gets null back.
inline std::unique_ptr<launcher> agree(rank_link& link, device_backend& device, const codegen::kernel_source& source,
                                       const cache::key_material& material, const std::string& name,
                                       kernel_stats& stats, const launcher* held) {
  const std::shared_ptr<const cache::disk_cache>& disk = device.disk();
  const std::string key = cache::key_of(material);
  std::unique_ptr<launcher> mine =
      held == nullptr && disk != nullptr ? load_from(device, *disk, material, key, name, stats) : nullptr;
  const launcher* const have = held != nullptr ? held : mine.get();
  if (link.all(have != nullptr)) return mine;
  std::int32_t holder = have != nullptr ? link.rank() : link.ranks();
  link.all_reduce(&holder, 1, scalar_type::int32, access::min);
  if (holder == link.ranks()) holder = 0;
  if (link.rank() == holder) {
    if (have != nullptr) {
      send_entry(link, holder, material, [have] { return have->record(); });
      return mine;
    }
    try {
      mine = compile(device, source, name, stats);
    } catch (...) {
      // The others hear of it (an empty entry) rather than wait for one.
      std::string none;
      link.broadcast(none, holder);
      throw;
    }
    if (!device.records_after_first_launch()) {
      const cache::kernel_record record = send_entry(link, holder, material, [&l = *mine] { return l.record(); });
      if (disk != nullptr) disk->store(material, key, record);
      return mine;
    }
    // Its record is taken once it has run (PoCL finishes a kernel at its first launch): the
    // others wait in the broadcast meanwhile, within the same loop's launch.
    mine->after_first_launch([&device, &link, holder, disk, material, key, &l = *mine] {
      const cache::kernel_record record = send_entry(link, holder, material, [&] {
        device.wait();
        return l.record();
      });
      if (disk != nullptr) disk->store(material, key, record);
    });
    return mine;
  }
  std::string bytes;
  link.broadcast(bytes, holder);
  if (have != nullptr) return mine;
  if (bytes.empty()) {
    throw error(parloop::detail::format("kernel '{}': rank {} could not compile or send it (its error says why)", name,
                                        holder));
  }
  const cache::decoded_entry got =
      cache::decode_entry(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), &material);
  if (got.record) {
    try {
      std::unique_ptr<launcher> loaded = device.load(*got.record);
      stats.received.fetch_add(1);
      if (log_info()) log_line("received kernel '{}' from rank {}", name, holder);
      if (disk != nullptr) disk->store(material, key, *got.record);
      return loaded;
    } catch (const error&) {
      // This device refuses the binary: compiled here instead.
    }
  } else if (log_info()) {
    log_line("kernel '{}' from rank {} is not for this device ({}): compiling it here", name, holder, got.problem);
  }
  return compile(device, source, name, stats);
}

}  // namespace parloop::detail
