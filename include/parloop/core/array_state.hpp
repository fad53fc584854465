// SPDX-License-Identifier: MIT
// The storage behind a Dat or a Global: host values, device mirror, name, owner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/validity.hpp"

namespace parloop {

// The scalar types a Dat or Global may hold: those every device dialect has.
template <class T>
inline constexpr bool is_data_scalar = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                       std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

namespace detail {

template <class T>
struct array_state {
  // `dim` values per element of `on` (a Global has no set).
  array_state(Runtime rt, std::optional<Set> on, std::vector<T> init, std::string array_name, int dim = 1)
      : runtime(std::move(rt)),
        set(std::move(on)),
        host(std::move(init)),
        name(std::move(array_name)),
        array(host.data(), host.size() * sizeof(T), runtime.state()->transfers,
              set ? shape_under(runtime.state()->dats, static_cast<std::size_t>(set->size()), static_cast<std::size_t>(dim),
                                sizeof(T))
                  : component_shape{}) {}
  array_state(const array_state&) = delete;
  array_state& operator=(const array_state&) = delete;

  // Null on the host backend.
  device_memory* device() const { return runtime.state()->memory; }

  Runtime runtime;
  std::optional<Set> set;  // empty for a Global
  std::vector<T> host;
  std::string name;
  mirrored_array array;
};

}  // namespace detail
}  // namespace parloop
