// SPDX-License-Identifier: MIT
// The host backend: runs the kernel lambda on plain values, element by element, in order.
// It is the reference every device backend is tested against. It is in exec/, with the loop
// that calls it, since it has no device to open: no files of its own under backend/. The threads
// backend (threads_launch.hpp) runs the same functions on parts of a loop at once, each block's
// reductions into partials of its own.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <tuple>
#include <utility>

#include "parloop/core/arg.hpp"
#include "parloop/core/range.hpp"
#include "parloop/dsl/accessor.hpp"
#include "parloop/dsl/layer.hpp"
#include "parloop/dsl/layered_binding.hpp"
#include "parloop/ir/kernel.hpp"

namespace parloop::detail {

template <class T, int Dim, access Mode, arg_kind Kind>
void prepare_on_host(const arg<T, Dim, Mode, Kind>& a) {
  array_state<T>& s = *a.data;
  if constexpr (is_modified(Mode))
    s.array.host_written(s.device());
  else
    s.array.ensure_host(s.device());
}

// A block's partials: each global the loop modifies, in argument order, its values in 8-byte
// aligned places.
template <class A>
inline constexpr std::size_t partial_size = 0;
template <class T, int Dim, access Mode>
inline constexpr std::size_t partial_size<arg<T, Dim, Mode, arg_kind::global>> = is_modified(Mode)
                                                                                     ? (Dim * sizeof(T) + 7) / 8 * 8
                                                                                     : 0;

template <class... Args>
inline constexpr std::size_t partial_bytes = (std::size_t{0} + ... + partial_size<Args>);

// Where each argument's partial starts.
template <class... Args>
constexpr std::array<std::size_t, sizeof...(Args)> partial_offsets() {
  std::array<std::size_t, sizeof...(Args)> at{};
  std::size_t next = 0, i = 0;
  ((at[i++] = next, next += partial_size<Args>), ...);
  return at;
}

// Runs the elements of r in order (over a subset, r is positions in its `elements`): each
// argument bound once, a global's copy going home (to the global, or to `partials` where given)
// once every element has run, so that a kernel that throws leaves it as it was.
template <class F, class... Args, std::size_t... Pos>
void run_on_host_with(const F& f, range r, std::span<const index_t> elements, std::byte* partials,
                      std::index_sequence<Pos...>, const Args&... args) {
  constexpr std::array<std::size_t, sizeof...(Args)> at = partial_offsets<Args...>();
  std::tuple<dsl::host_binding<Pos, Args>...> bound{dsl::host_binding<Pos, Args>(
      args, partial_size<Args> > 0 && partials != nullptr ? partials + at[Pos] : nullptr)...};
  if (elements.empty()) {
    for (index_t e = r.start; e < r.end; ++e) f(std::get<Pos>(bound).at(e)...);
  } else {
    for (index_t p = r.start; p < r.end; ++p) {
      const index_t e = elements[static_cast<std::size_t>(p)];
      f(std::get<Pos>(bound).at(e)...);
    }
  }
  (std::get<Pos>(bound).finish(), ...);
}

template <class F, class... Args>
void run_on_host(const F& f, range r, std::span<const index_t> elements, std::byte* partials, const Args&... args) {
  run_on_host_with(f, r, elements, partials, std::index_sequence_for<Args...>{}, args...);
}

// A loop over extruded set `over`: the layers x.first to x.first + x.count - 1 of each column
// of r, in order, pl::layer() each cell's.
template <class F, class... Args, std::size_t... Pos>
void run_layers_on_host_with(const F& f, range r, const Set& over, const ir::extrusion& x, std::byte* partials,
                             std::index_sequence<Pos...>, const Args&... args) {
  constexpr std::array<std::size_t, sizeof...(Args)> at = partial_offsets<Args...>();
  std::tuple<dsl::layered_binding<Pos, Args>...> bound{dsl::bind_layered<Pos>(
      args, partial_size<Args> > 0 && partials != nullptr ? partials + at[Pos] : nullptr, over, x.facets)...};
  const dsl::host_layer_scope keep;
  for (index_t c = r.start; c < r.end; ++c) {
    for (index_t l = x.first; l < x.first + x.count; ++l) {
      dsl::host_layer = l;
      f(std::get<Pos>(bound).at(c, l)...);
    }
  }
  (std::get<Pos>(bound).finish(), ...);
}

template <class F, class... Args>
void run_layers_on_host(const F& f, range r, const Set& over, const ir::extrusion& x, std::byte* partials,
                        const Args&... args) {
  run_layers_on_host_with(f, r, over, x, partials, std::index_sequence_for<Args...>{}, args...);
}

// A block's partial of a global it modifies starts where adding it changes nothing: 0 for INC,
// the global's own values for MIN and MAX.
template <class T, int Dim, access Mode, arg_kind Kind>
void start_partial(std::byte* p, const arg<T, Dim, Mode, Kind>& a) {
  if constexpr (partial_size < arg < T, Dim, Mode, Kind >>> 0) {
    if constexpr (Mode == access::inc)
      std::memset(p, 0, Dim * sizeof(T));
    else
      std::memcpy(p, a.data->host.data(), Dim * sizeof(T));
  }
}

// Combines a block's partial of a global (dim values, reduced by INC, MIN or MAX) into the
// global's values; also for globals whose type and mode are known at run time only (OP2's API).
template <class T>
void combine_partial_values(T* home, const T* part, int dim, access mode) {
  for (int k = 0; k < dim; ++k) {
    if (mode == access::inc)
      home[k] = static_cast<T>(dsl::apply<ir::op::add>(home[k], part[k]));
    else if (mode == access::min)
      home[k] = static_cast<T>(dsl::apply<ir::op::min>(home[k], part[k]));
    else
      home[k] = static_cast<T>(dsl::apply<ir::op::max>(home[k], part[k]));
  }
}

template <class T, int Dim, access Mode, arg_kind Kind>
void combine_partial(const std::byte* p, const arg<T, Dim, Mode, Kind>& a) {
  if constexpr (partial_size < arg < T, Dim, Mode, Kind >>> 0) {
    T part[Dim];
    std::memcpy(part, p, sizeof part);
    combine_partial_values(a.data->host.data(), part, Dim, Mode);
  }
}

template <class... Args>
void start_partials(std::byte* partials, const Args&... args) {
  constexpr std::array<std::size_t, sizeof...(Args)> at = partial_offsets<Args...>();
  std::size_t i = 0;
  (start_partial(partials + at[i++], args), ...);
}

template <class... Args>
void combine_partials(const std::byte* partials, const Args&... args) {
  constexpr std::array<std::size_t, sizeof...(Args)> at = partial_offsets<Args...>();
  std::size_t i = 0;
  (combine_partial(partials + at[i++], args), ...);
}

}  // namespace parloop::detail
