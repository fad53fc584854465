// SPDX-License-Identifier: MIT
// The storage behind a Dat or a Global: host values, device mirror, name, owner.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/thread_pool.hpp"
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

// Allocates without writing: a vector of n values made with it leaves them uninitialised (for
// the arithmetic types of dats), so that their first write decides where the system puts each
// page -- near the thread that writes it.
template <class T>
struct untouched_allocator {
  using value_type = T;
  untouched_allocator() = default;
  template <class U>
  explicit untouched_allocator(const untouched_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    if constexpr (sizeof...(A) == 0) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const untouched_allocator&, const untouched_allocator&) { return true; }
};

// A dat's or global's host values.
template <class T>
using host_vector = std::vector<T, untouched_allocator<T>>;

// `init` as host values on `rt`: on the threads backend, each thread writes the part of the
// elements it runs in a direct loop (core/thread_pool.hpp's part_of), so that a machine whose
// memory is nearer some cores than others -- several sockets, or a virtual machine over them --
// keeps each thread's part near it (on 16 cores of the GPU machine, a direct loop over values
// written by one thread ran at two thirds of the bandwidth).
template <class T>
host_vector<T> placed_values(const Runtime& rt, const std::optional<Set>& on, const std::vector<T>& init, int dim) {
  host_vector<T> values(init.size());
  thread_pool* pool = rt.state()->threads.get();
  const index_t n = on ? on->size() : 0;
  const int threads = pool != nullptr && n > 0 ? threads_for(pool->size(), n) : 1;
  if (threads == 1) {
    std::copy(init.begin(), init.end(), values.begin());
    return values;
  }
  const auto at = [&](index_t e) { return static_cast<std::ptrdiff_t>(e) * dim; };
  pool->run(
      [&](int t) {
        const range part = part_of(0, n, t, threads);
        std::copy(init.begin() + at(part.start), init.begin() + at(part.end), values.begin() + at(part.start));
      },
      threads);
  return values;
}

template <class T>
struct array_state : array_base {
  // `dim` values per element of `on` (a Global has no set).
  array_state(Runtime rt, std::optional<Set> on, const std::vector<T>& init, std::string array_name, int dim = 1)
      : array_base(std::move(rt), std::move(on), std::move(array_name)),
        host(placed_values(runtime, set, init, dim)),
        array(host.data(), host.size() * sizeof(T), runtime.state()->transfers, shape_of(runtime, set, dim, sizeof(T))) {}

  host_vector<T> host;
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
