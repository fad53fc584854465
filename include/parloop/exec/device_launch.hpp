// SPDX-License-Identifier: MIT
// A par_loop on a device backend: find the compiled kernel, make the arguments' device
// copies current, bind the buffers, launch, and record what the loop wrote. After the first
// call of a signature this does no tracing, no code generation, no hashing, no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "parloop/cache/kernel_cache.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/device_backend.hpp"
#include "parloop/exec/range.hpp"
#include "parloop/exec/strategy.hpp"
#include "parloop/ir/types.hpp"

namespace parloop::detail {

// One argument, with its types erased: what binding and bookkeeping need.
struct arg_view {
  mirrored_array* data;
  mirrored_array* map;  // null unless through a map
  access mode;
  bool reduction;  // a global reduced into (INC, MIN, MAX)
  ir::scalar_type type;
  int dim;
  void* host;
};

template <class T, int Dim, access Mode, arg_kind Kind>
arg_view view_of(const arg<T, Dim, Mode, Kind>& a) {
  return {&a.data->array,
          a.map != nullptr ? &a.map->array : nullptr,
          Mode,
          Kind == arg_kind::global && Mode != access::read,
          ir::scalar_of<T>(),
          Dim,
          a.data->host.data()};
}

template <class K, class... Args>
void launch_on_device(device_backend& device, const K& k, const strategy& s, range r, const Args&... args) {
  constexpr std::size_t n = sizeof...(Args);
  signature_entry& entry = k.entry(args...);
  const device_kernel& compiled = k.cache().compiled(entry, device, s);

  const std::array<arg_view, n> views{view_of(args)...};
  for (const arg_view& v : views) {
    // A reduction combines with the global's host value; everything else is read on the device.
    if (v.reduction) v.data->ensure_host(&device);
    else v.data->ensure_device(device);
    if (v.map != nullptr) v.map->ensure_device(device);
  }
  std::array<const device_buffer*, 2 * n> buffers{};
  std::size_t n_buffers = 0;
  for (const binding& b : entry.bindings) {
    const arg_view& v = views[static_cast<std::size_t>(b.position)];
    buffers[n_buffers++] = b.role == codegen::buffer_role::data ? v.data->buffer() : v.map->buffer();
  }
  std::array<reduction_target, n> reductions{};
  std::size_t n_reductions = 0;
  for (const arg_view& v : views) {
    if (v.reduction) reductions[n_reductions++] = {v.mode, v.type, v.dim, v.host};
  }

  device.launch(compiled, r.start, r.end, std::span(buffers.data(), n_buffers),
                std::span(reductions.data(), n_reductions));
  k.cache().count_launch();

  for (const arg_view& v : views) {
    if (v.reduction) v.data->host_written(nullptr);
    else if (is_modified(v.mode)) v.data->device_written();
  }
}

}  // namespace parloop::detail
