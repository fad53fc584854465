// SPDX-License-Identifier: MIT
// The access rules as named constants: a broken rule's diagnostic shows, e.g.,
// `rule::not_read_only<2, parloop::access::read>` evaluating to false -- argument 2, declared READ.
#pragma once

#include <cstddef>
#include <type_traits>

#include "parloop/core/access.hpp"

namespace parloop::dsl::rule {

template <std::size_t Argument, access Mode>
inline constexpr bool not_read_only = Mode != access::read;

template <std::size_t Argument, access Mode>
inline constexpr bool not_increment_only = Mode != access::inc;

template <std::size_t Argument, access Mode>
inline constexpr bool not_min_reduction = Mode != access::min;

template <std::size_t Argument, access Mode>
inline constexpr bool not_max_reduction = Mode != access::max;

// An INC is summed from zero on a device and applied step by step on the host: with an integer
// argument, a fraction would be dropped at different points.
template <std::size_t Argument, access Mode, class Target, class Value>
inline constexpr bool not_fraction_into_integer_increment =
    !(Mode == access::inc && std::is_integral_v<Target> && std::is_floating_point_v<Value>);

}  // namespace parloop::dsl::rule

// One place for the messages, so host and traced kernels fail the same way.
#define PARLOOP_MSG_READ_ONLY "parloop: cannot write to an argument declared pl::READ"
#define PARLOOP_MSG_INC_UPDATE "parloop: an argument declared pl::INC only takes += and -="
#define PARLOOP_MSG_INC_FRACTION                                                                             \
  "parloop: an integer argument declared pl::INC takes integers (a fraction is dropped at different points " \
  "on the host and on a device): write x += pl::cast<T>(v)"
#define PARLOOP_MSG_INC_READ "parloop: an argument declared pl::INC cannot be read: it only takes += and -="
#define PARLOOP_MSG_MIN "parloop: an argument declared pl::MIN can only be updated as g = pl::min(g, v)"
#define PARLOOP_MSG_MAX "parloop: an argument declared pl::MAX can only be updated as g = pl::max(g, v)"
