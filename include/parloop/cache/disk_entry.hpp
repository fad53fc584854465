// SPDX-License-Identifier: MIT
// One disk cache entry as bytes: a fixed header (magic, format version, payload size, payload
// checksum) and a cereal payload holding the full key material and the kernel_record. The key
// is an XXH3-128 hash of the key material; reading an entry compares the stored material with
// the wanted one, so a collision, a damaged file or an entry of another version is a miss and
// never a wrong binary.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <cereal/archives/portable_binary.hpp>
#include <cereal/cereal.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "parloop/config.hpp"
#include "parloop/cache/bounded.hpp"
#include "parloop/cache/device_signature.hpp"
#include "parloop/cache/kernel_record.hpp"
#include "parloop/format.hpp"
#include "parloop/version.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

// Changes whenever the bytes of an entry would: entries of another version are misses.
inline constexpr std::uint32_t disk_format_version = 1;

// Everything a binary depends on. Two kernels share an entry only if all of it is equal.
struct key_material {
  std::uint32_t format_version = disk_format_version;
  std::string parloop_version = version_string;
  device_signature signature;
  std::string source;  // the generated source, with its entry point's name
  // The launch geometry that goes with the source: two strategies can write the same source
  // and launch it differently (blocks of 128 or 256 of one element each).
  ir::grid_size_functor grid;
  int block = 0;
  std::vector<ir::kernel_buffer> layout;

  friend bool operator==(const key_material&, const key_material&) = default;
};

template <class Archive>
void serialize(Archive& archive, key_material& m) {
  archive(m.format_version, bounded(m.parloop_version), m.signature, bounded(m.source), m.grid, m.block,
          bounded(m.layout));
}

// The material as the bytes that are hashed and stored.
inline std::string material_bytes(const key_material& m) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(m);
  }
  return std::move(out).str();
}

// 32 hexadecimal digits of XXH3-128 over the material.
inline std::string key_of(const key_material& m) {
  const std::string bytes = material_bytes(m);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return parloop::detail::format("{:016x}{:016x}", h.high64, h.low64);
}

namespace detail {

inline constexpr std::array<unsigned char, 8> entry_magic{'P', 'L', 'K', 'C', 'A', 'C', 'H', 'E'};
// An export: this magic, then for each entry its size (8 bytes, little-endian) and its bytes.
inline constexpr std::array<unsigned char, 8> export_magic{'P', 'L', 'K', 'E', 'X', 'P', 'R', 'T'};
// magic, format version (4 bytes), payload size (8), payload checksum XXH3-64 (8); little-endian.
inline constexpr std::size_t entry_header_size = 8 + 4 + 8 + 8;

inline void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline std::uint64_t get_le(std::span<const unsigned char> in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(in[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}

}  // namespace detail

// The bytes of an entry holding `record` under `material`.
inline std::string encode_entry(const key_material& material, const kernel_record& record) {
  std::ostringstream payload_stream;
  {
    cereal::PortableBinaryOutputArchive archive(payload_stream);
    archive(material, record);
  }
  const std::string payload = std::move(payload_stream).str();
  std::string out;
  out.reserve(detail::entry_header_size + payload.size());
  out.append(detail::entry_magic.begin(), detail::entry_magic.end());
  detail::put_le(out, disk_format_version, 4);
  detail::put_le(out, payload.size(), 8);
  detail::put_le(out, XXH3_64bits(payload.data(), payload.size()), 8);
  out += payload;
  return out;
}

// What reading an entry found: the record, or why there is none.
struct decoded_entry {
  std::optional<kernel_record> record;
  std::optional<key_material> material;  // as stored, where the payload could be read
  std::string problem;                   // empty when `record` is set
};

// Reads an entry's bytes. `wanted`, if given, must equal the stored key material. Never throws
// for bad bytes: every fault is a `problem`.
inline decoded_entry decode_entry(std::span<const unsigned char> bytes, const key_material* wanted = nullptr) {
  decoded_entry out;
  if (bytes.size() < detail::entry_header_size) {
    out.problem =
        parloop::detail::format("{} bytes, shorter than the {}-byte header", bytes.size(), detail::entry_header_size);
    return out;
  }
  if (!std::equal(detail::entry_magic.begin(), detail::entry_magic.end(), bytes.begin())) {
    out.problem = "not a parloop cache entry (foreign magic)";
    return out;
  }
  const std::uint64_t version = detail::get_le(bytes, 8, 4);
  if (version != disk_format_version) {
    out.problem =
        parloop::detail::format("cache format version {}, this parloop reads version {}", version, disk_format_version);
    return out;
  }
  const std::uint64_t size = detail::get_le(bytes, 12, 8);
  const std::span<const unsigned char> payload = bytes.subspan(detail::entry_header_size);
  if (size != payload.size()) {
    out.problem = parloop::detail::format("payload of {} bytes, the header says {}", payload.size(), size);
    return out;
  }
  if (detail::get_le(bytes, 20, 8) != XXH3_64bits(payload.data(), payload.size())) {
    out.problem = "payload checksum mismatch";
    return out;
  }
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(payload.data()), payload.size()));
    bounded_input_archive archive(in, payload.size());
    key_material material;
    kernel_record record;
    archive(material, record);
    if (in.peek() != std::char_traits<char>::eof()) {
      out.problem = "bytes after the payload's record";
      return out;
    }
    out.material = std::move(material);
    if (wanted != nullptr && !(*out.material == *wanted)) {
      out.problem = "stored key material differs from the wanted one";
      return out;
    }
    if (record.backend != out.material->signature.backend) {
      out.problem = "the record's backend differs from its key's";
      return out;
    }
    if (!(record.grid == out.material->grid) || record.block != out.material->block ||
        record.layout != out.material->layout) {
      out.problem = "the record's launch geometry or buffer layout differs from its key's";
      return out;
    }
    out.record = std::move(record);
  } catch (const std::exception& e) {
    out.problem = parloop::detail::format("payload unreadable: {}", e.what());
  }
  return out;
}

}  // namespace parloop::cache

PARLOOP_COLD_END
