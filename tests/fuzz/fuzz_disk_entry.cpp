// SPDX-License-Identifier: MIT
// libFuzzer target for the disk cache's entry reader, cache::decode_entry: whatever the bytes,
// it returns a record or a problem and never throws or crashes (an escaping exception reaches
// std::terminate, which the fuzzer reports as a crash). What it accepts must be a record the
// cache can use: one that encodes and decodes back to itself and whose grid-size functor a
// launch can evaluate.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>

#include <parloop/cache/disk_entry.hpp>
#include <parloop/config.hpp>

namespace {

namespace pc = parloop::cache;

void require(bool holds, const char* property) {
  if (!holds) {
    std::fprintf(stderr, "fuzz_disk_entry: violated: %s\n", property);
    std::abort();
  }
}

std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// The input with its header's payload size and checksum rewritten to match its payload. Nearly
// every mutation of a payload fails the checksum, so without this the fuzzer would never get
// past the header into the cereal reader and the records' validation.
std::string with_matching_header(std::span<const unsigned char> bytes) {
  const std::span<const unsigned char> payload = bytes.subspan(pc::detail::entry_header_size);
  std::string out(reinterpret_cast<const char*>(bytes.data()), 12);  // magic and format version
  pc::detail::put_le(out, payload.size(), 8);
  pc::detail::put_le(out, XXH3_64bits(payload.data(), payload.size()), 8);
  out.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  return out;
}

// A launch evaluates the functor on its loop's range (index_t: 32 bits, start <= end) and the
// device's compute units; each must give a grid size, never negative, without UB.
void check_grid(const parloop::ir::grid_size_functor& grid) {
  constexpr std::int64_t largest_index = std::numeric_limits<parloop::index_t>::max();
  constexpr std::array<std::array<std::int64_t, 2>, 5> ranges{
      {{0, 0}, {0, 1}, {0, 1000}, {17, 1 << 20}, {0, largest_index}}};
  for (const std::int64_t compute_units : {1, 132}) {
    for (const auto& [start, end] : ranges) {
      require(grid(start, end, {compute_units}) >= 0, "a grid size is never negative");
    }
  }
  require(!grid.to_string().empty(), "an accepted functor has a formula");
}

// A decoded entry: the fields the record's validation promises, the functor, and the round trip.
void check_accepted(const pc::decoded_entry& d) {
  require(d.problem.empty() && d.material.has_value(), "an accepted entry has its material and no problem");
  const pc::key_material& material = *d.material;
  const pc::kernel_record& record = *d.record;
  require(record.backend == material.signature.backend, "the record's backend is its key's");
  require(record.backend != parloop::backend_kind::host, "a stored record is a device's");
  require(!record.entry.empty() && !record.binary.empty(), "a record has an entry point and a binary");
  require(record.block >= 1 && record.block <= 1024, "a record's block is 1 to 1024");
  check_grid(record.grid);
  check_grid(material.grid);

  const std::string encoded = pc::encode_entry(material, record);
  const pc::decoded_entry again = pc::decode_entry(bytes_of(encoded), &material);
  require(again.record.has_value(), "a re-encoded entry decodes under its own material");
  require(*again.record == record && *again.material == material, "a re-encoded entry decodes to an equal entry");
  require(pc::encode_entry(*again.material, *again.record) == encoded, "an entry encodes to the same bytes each time");

  // The wanted material is compared, not only read: any other source is a miss.
  pc::key_material other = material;
  other.source += ' ';
  require(!pc::decode_entry(bytes_of(encoded), &other).record.has_value(), "another material's entry is refused");
}

void check(std::span<const unsigned char> bytes) {
  const pc::decoded_entry d = pc::decode_entry(bytes);
  if (d.record) {
    check_accepted(d);
  } else {
    require(!d.problem.empty(), "a refused entry says why");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  check(bytes);
  if (size >= pc::detail::entry_header_size) {
    const std::string repaired = with_matching_header(bytes);
    if (repaired != std::string(reinterpret_cast<const char*>(data), size)) check(bytes_of(repaired));
  }
  return 0;
}
