// SPDX-License-Identifier: MIT
// Strings and vectors of a cache entry, read with their length checked first. cereal sizes a
// container from the length it reads and only then reads the bytes: a damaged or crafted entry
// (an import from another machine) could make it allocate gigabytes before the read fails. The
// bytes are cereal's own (a size tag, then the values), so entries do not change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <istream>

#include <cereal/archives/portable_binary.hpp>
#include <cereal/cereal.hpp>

#include "parloop/config.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

// The archive decode_entry reads a payload with: no length in it can be larger than the payload.
// Another archive reads lengths unchecked, as cereal does.
class bounded_input_archive : public cereal::PortableBinaryInputArchive {
 public:
  bounded_input_archive(std::istream& in, std::size_t payload_bytes)
      : PortableBinaryInputArchive(in), payload_bytes_(payload_bytes) {}
  std::size_t payload_bytes() const { return payload_bytes_; }

 private:
  std::size_t payload_bytes_;
};

// A string or vector, (de)serialised through bounded(x).
template <class Container>
struct bounded_ref {
  Container* container;
};
template <class Container>
bounded_ref<Container> bounded(Container& c) {
  return {&c};
}

template <class Archive, class Container>
void save(Archive& archive, const bounded_ref<Container>& b) {
  using value_type = typename Container::value_type;
  const Container& c = *b.container;
  archive(cereal::make_size_tag(static_cast<cereal::size_type>(c.size())));
  if constexpr (std::is_arithmetic_v<value_type>) {
    archive(cereal::binary_data(c.data(), c.size() * sizeof(value_type)));
  } else {
    for (const value_type& v : c) archive(v);
  }
}

template <class Archive, class Container>
void load(Archive& archive, bounded_ref<Container>& b) {
  using value_type = typename Container::value_type;
  cereal::size_type size = 0;
  archive(cereal::make_size_tag(size));
  // Each value takes at least a byte of the payload.
  if (const auto* limited = dynamic_cast<const bounded_input_archive*>(&archive);
      limited != nullptr && size > limited->payload_bytes()) {
    throw cereal::Exception(parloop::detail::format("a length of {} in a payload of {} bytes",
                                                    static_cast<std::uint64_t>(size), limited->payload_bytes()));
  }
  Container& c = *b.container;
  c.resize(static_cast<std::size_t>(size));
  if constexpr (std::is_arithmetic_v<value_type>) {
    archive(cereal::binary_data(c.data(), c.size() * sizeof(value_type)));
  } else {
    for (value_type& v : c) archive(v);
  }
}

}  // namespace parloop::cache

PARLOOP_COLD_END
