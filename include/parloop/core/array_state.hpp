// SPDX-License-Identifier: MIT
// The storage behind a Dat or a Global: host values, device mirror, name, owner.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/thread_team.hpp"
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
  // What its halo exchanges use, made at the first (exec/distributed/halo.hpp).
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
    if constexpr (sizeof...(A) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const untouched_allocator&, const untouched_allocator&) { return true; }
};

// A dat's or global's host values.
template <class T>
using host_vector = std::vector<T, untouched_allocator<T>>;

// `count` host values on `rt`, `dim` per element of `on`, the values of elements [part) written
// by fill(part, values): on the threads backend, each thread writes the part of the elements it
// runs in a direct loop (thread_team::touch), so that a machine whose memory is nearer some
// cores than others -- several sockets, or a virtual machine over them -- keeps each thread's
// part near it (values one thread wrote all lie near that thread's cores, and a direct loop over
// them loses bandwidth).
template <class T, class Fill>
host_vector<T> placed(const Runtime& rt, const std::optional<Set>& on, std::size_t count, Fill fill) {
  host_vector<T> values(count);
  thread_team* team = rt.state()->threads.get();
  const index_t n = on ? on->size() : 0;
  if (team == nullptr || n == 0) {
    fill(range{0, n}, values.data());
    return values;
  }
  team->touch(n, [&](range part) { fill(part, values.data()); });
  return values;
}

// `init` as host values, placed.
template <class T>
host_vector<T> placed_values(const Runtime& rt, const std::optional<Set>& on, const std::vector<T>& init, int dim) {
  const auto at = [&](index_t e) { return static_cast<std::ptrdiff_t>(e) * dim; };
  if (!on) return host_vector<T>(init.begin(), init.end());
  return placed<T>(rt, on, init.size(), [&](range part, T* out) {
    std::copy(init.begin() + at(part.start), init.begin() + at(part.end), out + at(part.start));
  });
}

template <class T>
struct array_state : array_base {
  // `dim` values per element of `on` (a Global has no set).
  array_state(const Runtime& rt, std::optional<Set> on, const std::vector<T>& init, std::string array_name, int dim = 1)
      : array_state(rt, on, placed_values(rt, on, init, dim), std::move(array_name), dim) {}
  // Host values made already (placed).
  array_state(Runtime rt, std::optional<Set> on, host_vector<T> values, std::string array_name, int dim)
      : array_base(std::move(rt), std::move(on), std::move(array_name)),
        host(std::move(values)),
        array(host.data(), host.size() * sizeof(T), runtime.state()->transfers, shape_of(runtime, set, dim, sizeof(T)),
              {&array_state::move_loop_copy, &array_state::make_user_copy, this}) {}

  // The loops' copy: the host backends' loops read and write it.
  host_vector<T> host;
  // On a renumbered set, the user's copy (mirrored_array's): the storage `host` had before the
  // set's first renumbering, which views taken then still show.
  host_vector<T> user;
  mirrored_array array;

 private:
  // mirrored_array::loop_copy_mover: the loops' copy gathered, in parallel and placed, into new
  // storage; the old becomes `user` (a vector's move keeps its storage, and views of it).
  static std::byte* move_loop_copy(void* owner, std::span<const index_t> old_of_new) {
    auto& self = *static_cast<array_state*>(owner);
    const std::size_t row = old_of_new.empty() ? 0 : self.host.size() / old_of_new.size();
    const T* old = self.host.data();
    host_vector<T> loop = placed<T>(self.runtime, self.set, self.host.size(), [&](range part, T* out) {
      for (index_t e = part.start; e < part.end; ++e) {
        std::copy_n(old + static_cast<std::size_t>(old_of_new[static_cast<std::size_t>(e)]) * row, row,
                    out + static_cast<std::size_t>(e) * row);
      }
    });
    self.user = std::move(self.host);
    self.host = std::move(loop);
    return reinterpret_cast<std::byte*>(self.host.data());
  }
  // mirrored_array::loop_copy_mover: storage for the user's copy, which the array then fills.
  static std::byte* make_user_copy(void* owner) {
    auto& self = *static_cast<array_state*>(owner);
    self.user = host_vector<T>(self.host.size());
    return reinterpret_cast<std::byte*>(self.user.data());
  }
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
