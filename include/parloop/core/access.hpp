// SPDX-License-Identifier: MIT
// Access modes: how a par_loop argument is used, as tag objects of distinct types.
#pragma once

#include <cstdint>
#include <string_view>

namespace parloop {

enum class access : std::uint8_t { read, write, rw, inc, min, max };

// A distinct type per mode, so that the kernel's accessors can enforce the mode's rules
// at compile time.
template <access Mode>
struct access_tag {
  static constexpr access mode = Mode;
};

inline constexpr access_tag<access::read> READ{};
inline constexpr access_tag<access::write> WRITE{};
inline constexpr access_tag<access::rw> RW{};
inline constexpr access_tag<access::inc> INC{};
inline constexpr access_tag<access::min> MIN{};
inline constexpr access_tag<access::max> MAX{};

constexpr std::string_view access_name(access mode) {
  switch (mode) {
    case access::read: return "pl::READ";
    case access::write: return "pl::WRITE";
    case access::rw: return "pl::RW";
    case access::inc: return "pl::INC";
    case access::min: return "pl::MIN";
    case access::max: return "pl::MAX";
  }
  return "?";
}

// Whether the kernel may take the argument's value (WRITE only once written: checked while tracing).
constexpr bool is_readable(access mode) { return mode == access::read || mode == access::rw || mode == access::write; }
// Whether the argument's data changes in the loop.
constexpr bool is_modified(access mode) { return mode != access::read; }
// Whether the loop needs the argument's old value (WRITE overwrites it).
constexpr bool needs_old_value(access mode) { return mode != access::write; }
// Whether values meet by an associative operation (INC, MIN, MAX), so that order does not matter.
constexpr bool is_combining(access mode) { return mode == access::inc || mode == access::min || mode == access::max; }

}  // namespace parloop
