// SPDX-License-Identifier: MIT
// The storage behind a Dat or a Global: host values, device mirror, name, owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/validity.hpp"

namespace parloop {

// The scalar types a Dat or Global may hold: those every device dialect has.
template <class T>
inline constexpr bool is_data_scalar = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                       std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

namespace detail {

struct halo_parts;

// What a dat or global is whatever its type: what the code below par_loop reaches through an
// argument's view (core/arg.hpp).
struct array_base {
  array_base(Runtime rt, std::optional<Set> on, std::string array_name);
  array_base(const array_base&) = delete;
  array_base& operator=(const array_base&) = delete;
  ~array_base();

  // Null on the host backend.
  device_memory* device() const { return runtime.state()->memory; }

  Runtime runtime;
  std::optional<Set> set;  // empty for a Global
  std::string name;
  // On a distributed set: whether the halo holds its owners' current values. Every rank makes the
  // same calls, so every rank keeps it alike, and all decide alike whether to exchange.
  bool halo_current = false;
  // What its halo exchanges use, made at the first (exec/halo.hpp).
  std::unique_ptr<halo_parts> halo;
};

// The device copy's shape of `dim` values of `scalar` bytes per element of `on` (a Global's has
// none).
inline component_shape shape_of(const Runtime& rt, const std::optional<Set>& on, int dim, std::size_t scalar) {
  return on ? shape_under(rt.state()->dats, static_cast<std::size_t>(on->size()), static_cast<std::size_t>(dim), scalar)
            : component_shape{};
}

template <class T>
struct array_state : array_base {
  // `dim` values per element of `on` (a Global has no set).
  array_state(Runtime rt, std::optional<Set> on, std::vector<T> init, std::string array_name, int dim = 1)
      : array_base(std::move(rt), std::move(on), std::move(array_name)),
        host(std::move(init)),
        array(host.data(), host.size() * sizeof(T), runtime.state()->transfers, shape_of(runtime, set, dim, sizeof(T))) {}

  std::vector<T> host;
  mirrored_array array;
};

// Values of a type known at run time only, `dim` of `scalar` bytes per element of `on`: a halo's
// buffers, which plain code makes for a dat of any type.
struct byte_array : array_base {
  byte_array(Runtime rt, Set on, int dim, std::size_t scalar, std::string array_name)
      : array_base(std::move(rt), on, std::move(array_name)),
        host(static_cast<std::size_t>(on.size()) * static_cast<std::size_t>(dim) * scalar),
        array(host.data(), host.size(), runtime.state()->transfers, shape_of(runtime, set, dim, scalar)) {}

  // Allocated by new: aligned for every scalar type.
  std::vector<std::byte> host;
  mirrored_array array;
};

// A dat's halo exchange: the owned values other ranks import, gathered into `sent` (on a set of
// its own, through a map to the dat's set), and the halo's values scattered from `received`.
struct halo_parts {
  std::shared_ptr<map_state> exports, imports;
  std::unique_ptr<byte_array> sent, received;
  // Where each neighbour's part of `sent` and `received` starts, in bytes.
  std::vector<std::size_t> sent_offsets, received_offsets;
};

inline array_base::array_base(Runtime rt, std::optional<Set> on, std::string array_name)
    : runtime(std::move(rt)), set(std::move(on)), name(std::move(array_name)) {}
// Here, where halo_parts is whole.
inline array_base::~array_base() = default;

}  // namespace detail
}  // namespace parloop
