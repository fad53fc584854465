// SPDX-License-Identifier: MIT
// A dat's halo exchange on a distributed set, where the dat lives (on a device, on the device):
// a loop gathers the owned values other ranks import into one buffer, which alone is read back
// and sent; what arrives is written into another buffer, and a loop scatters it into the halo.
// Both loops are parloop loops, so every backend packs the same way, compiled and cached as any.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "parloop/core/array_state.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/exec/kernel.hpp"
#include "parloop/exec/run_range.hpp"

namespace parloop::detail {

// to = from, Dim values: the gather of the exports and the scatter of the imports.
template <class T, int Dim>
const auto& halo_copy() {
  static const auto k = kernel("parloop_halo_copy", [](auto to, auto from) {
    for (int c = 0; c < Dim; ++c) to[c] = from[c];
  });
  return k;
}

template <class T, int Dim>
halo_parts<T>& exchange_parts(array_state<T>& a, const set_distribution& d) {
  if (a.halo && a.halo->sent) return *a.halo;
  if (!a.halo) a.halo = std::make_unique<halo_parts<T>>();
  const Set& on = *a.set;
  const auto part = [&](const std::vector<index_t>& places, const char* what, std::shared_ptr<map_state>& map,
                        std::unique_ptr<array_state<T>>& values) {
    const Set over(a.runtime, static_cast<index_t>(places.size()), a.name + what);
    map = std::make_shared<map_state>(over, on, 1, places, a.name + what);
    values = std::make_unique<array_state<T>>(a.runtime, over, std::vector<T>(places.size() * Dim), a.name + what, Dim);
  };
  const auto byte_offsets = [](const std::vector<std::size_t>& elements) {
    std::vector<std::size_t> out(elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) out[i] = elements[i] * Dim * sizeof(T);
    return out;
  };
  part(d.exports, ":exports", a.halo->exports, a.halo->sent);
  part(d.imports, ":imports", a.halo->imports, a.halo->received);
  a.halo->sent_offsets = byte_offsets(d.export_offsets);
  a.halo->received_offsets = byte_offsets(d.import_offsets);
  return *a.halo;
}

// The launch a halo's loops take: the runtime's default strategy, never tuned (their time is
// the transfer's).
inline loop_choice halo_launch(const Runtime& rt) { return loop_choice{{rt.default_strategy(), rt.default_conflicts()}, false}; }

// Packs a's exported values on its device: a launch, which nothing waits for yet.
template <class T, int Dim>
void pack_exports(array_state<T>& a, const set_distribution& d) {
  halo_parts<T>& h = exchange_parts<T, Dim>(a, d);
  const Set& exports = h.exports->from;
  run_range(halo_copy<T, Dim>(), exports, halo_launch(a.runtime), range{0, exports.size()},
            arg<T, Dim, access::write, arg_kind::direct>{h.sent.get()},
            arg<T, Dim, access::read, arg_kind::indirect>{&a, h.exports.get(), 0});
}

// Reads back what pack_exports packed, starts sending it and receiving a's halo. The first
// read-back of a loop waits for the device's queue, so a loop packs every halo before it sends
// any: the queue is waited for once, not once a dat.
template <class T, int Dim>
std::unique_ptr<halo_transfer> send_exports(array_state<T>& a, const set_distribution& d) {
  halo_parts<T>& h = *a.halo;
  h.sent->array.ensure_host(h.sent->device());
  // The receive overwrites every value: the scatter uploads them.
  h.received->array.host_overwritten();
  return d.link->start(std::as_bytes(std::span<const T>(h.sent->host)), h.sent_offsets,
                       std::as_writable_bytes(std::span<T>(h.received->host)), h.received_offsets);
}

// Waits for a's halo and writes it in place.
template <class T, int Dim>
void finish_exchange(array_state<T>& a, halo_transfer& t) {
  t.wait();
  halo_parts<T>& h = *a.halo;
  const Set& imports = h.imports->from;
  run_range(halo_copy<T, Dim>(), imports, halo_launch(a.runtime), range{0, imports.size()},
            arg<T, Dim, access::write, arg_kind::indirect>{&a, h.imports.get(), 0},
            arg<T, Dim, access::read, arg_kind::direct>{h.received.get()});
}

}  // namespace parloop::detail
