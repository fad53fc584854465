// SPDX-License-Identifier: MIT
// Storage whose scalar type is known at run time only: OP2's API declares dats and globals by a
// type's name, and the MPI layer distributes such dats. Both make it here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parloop/core/array_state.hpp"
#include "parloop/core/dat.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"

namespace parloop::detail {

// The owner of the storage and its values.
struct any_array {
  std::shared_ptr<array_base> owner;
  mirrored_array* values = nullptr;
};

// A dat of `dim` values of type t per element of `set`, from `values` in the user's numbering
// (set.size() * dim of them), or zero where values is null.
inline any_array make_any_dat(const Set& set, scalar_type t, const std::byte* values, const std::string& name,
                              int dim) {
  const std::size_t count = static_cast<std::size_t>(set.size()) * static_cast<std::size_t>(dim);
  return with_data_scalar(t, "dat '" + name + "'", [&]<class T>(T) -> any_array {
    // Read where they lie when aligned for T; a copy otherwise, since C's callers pass any bytes.
    std::vector<T> aligned;
    const T* from = reinterpret_cast<const T*>(values);
    if (values != nullptr && reinterpret_cast<std::uintptr_t>(values) % alignof(T) != 0) {
      aligned.resize(count);
      std::memcpy(aligned.data(), values, count * sizeof(T));
      from = aligned.data();
    }
    auto state = make_dat_state<T>(set, from, name, dim);
    return {state, &state->array};
  });
}

// A global of `dim` values of type t, zero.
inline any_array make_any_global(const Runtime& rt, scalar_type t, const std::string& name, int dim) {
  return with_data_scalar(t, "global '" + name + "'", [&]<class T>(T) -> any_array {
    auto state =
        std::make_shared<array_state<T>>(rt, std::nullopt, std::vector<T>(static_cast<std::size_t>(dim)), name, dim);
    return {state, &state->array};
  });
}

}  // namespace parloop::detail
