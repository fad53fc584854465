// SPDX-License-Identifier: MIT
// A dat's halo exchange on a distributed set, where the dat lives (on a device, on the device):
// a loop gathers the owned values other ranks import into one buffer, which alone is read back
// and sent; what arrives is written into another buffer, and a loop scatters it into the halo.
// Both loops are parloop loops over the dat's view, whatever its type: on a device one kernel,
// compiled and cached as any (its IR built from its parameters); on the host a copy.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parloop/core/arg.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"
#include "parloop/dsl/params.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/exec/loop/run_range.hpp"
#include "parloop/ir/builder.hpp"

namespace parloop::detail {

// to = from, dim values: what the lambda [](auto to, auto from) { for (int c = 0; c < Dim; ++c)
// to[c] = from[c]; } traces, for the dim and type of the parameters.
inline ir::kernel halo_copy_ir(const std::string& name, std::span<const ir::param> params) {
  ir::builder b(name, std::vector<ir::param>(params.begin(), params.end()));
  for (int c = 0; c < params[0].dim; ++c) {
    const ir::id value = b.read_element(1, ir::no_id, b.literal_int(scalar_type::int32, c));
    b.assign(b.element(0, ir::no_id, b.literal_int(scalar_type::int32, c)), value);
  }
  return b.take();
}

// to = from on the host copies, element by element, through the map of whichever has one; the
// copies made current first (once, as a loop's prepare: the threads backend runs parts of the
// copy at once).
inline void prepare_halo_copy_on_host(const arg_view& to, const arg_view& from) {
  from.data->ensure_host(from.owner->device());
  to.data->host_written(to.owner->device());
}
inline void halo_copy_on_host(const arg_view& to, const arg_view& from, range r) {
  const std::size_t bytes = static_cast<std::size_t>(to.dim) * scalar_bytes(to.type);
  const auto place = [](const arg_view& a, index_t e) {
    return static_cast<std::size_t>(a.map != nullptr ? a.map->values[static_cast<std::size_t>(e)] : e);
  };
  for (index_t e = r.start; e < r.end; ++e) {
    std::memcpy(to.data->host_bytes() + place(to, e) * bytes, from.data->host_bytes() + place(from, e) * bytes, bytes);
  }
}

// Copies over every element of `over`, at the runtime's default launch (never tuned: its time is
// the transfer's). One kernel cache serves every type and dim: they are in the parameters.
inline void run_halo_copy(const Set& over, const arg_view& to, const arg_view& from) {
  static const std::string name = "parloop_halo_copy";
  static kernel_cache kernels(name);
  const Runtime& rt = over.runtime();
  const std::array<arg_view, 2> views{to, from};
  std::array<ir::param, 2> params{};
  dsl::params_of(views, params);
  const auto make_ir = [](std::span<const ir::param> p) { return halo_copy_ir(name, p); };
  const auto prepare = [&] { prepare_halo_copy_on_host(to, from); };
  const auto run = [&](range r, std::byte*) { halo_copy_on_host(to, from, r); };
  const auto no_partials = [](const std::byte*) {};
  const loop_call call{name,
                       kernels,
                       over,
                       loop_choice{{rt.default_strategy(), rt.default_conflicts()}},
                       range{0, over.size()},
                       views,
                       {make_ir, {prepare, run, 0, no_partials, no_partials}, false}};
  run_range(call, kernels.get(params, {}, [&] { return make_ir(params); }), call.how, call.r);
}

// The dat's exchange buffers and maps, made at its first exchange.
inline halo_parts& exchange_parts(const arg_view& a, const set_distribution& d) {
  array_base& dat = *a.owner;
  if (dat.halo) return *dat.halo;
  auto h = std::make_unique<halo_parts>();
  const Set& on = *dat.set;
  const std::size_t scalar = scalar_bytes(a.type);
  const auto part = [&](const std::vector<index_t>& places, const char* what, std::shared_ptr<map_state>& map,
                        std::unique_ptr<byte_array>& values) {
    const Set over(dat.runtime, static_cast<index_t>(places.size()), dat.name + what);
    map = std::make_shared<map_state>(over, on, 1, places, dat.name + what);
    values = std::make_unique<byte_array>(dat.runtime, over, a.dim, scalar, dat.name + what);
  };
  const auto byte_offsets = [&](const std::vector<std::size_t>& elements) {
    std::vector<std::size_t> out(elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) out[i] = elements[i] * static_cast<std::size_t>(a.dim) * scalar;
    return out;
  };
  part(d.exports, ":exports", h->exports, h->sent);
  part(d.imports, ":imports", h->imports, h->received);
  h->sent_offsets = byte_offsets(d.export_offsets);
  h->received_offsets = byte_offsets(d.import_offsets);
  dat.halo = std::move(h);
  return *dat.halo;
}

// A halo buffer's view: all of it, directly.
inline arg_view buffer_view(byte_array& b, access mode, const arg_view& of) {
  return {&b.array, &b, nullptr, mode, arg_kind::direct, 0, of.type, of.dim};
}

// Packs the exported values of the dat `a` reads on its device: a launch, which nothing waits
// for yet.
inline void pack_exports(const arg_view& a, const set_distribution& d) {
  halo_parts& h = exchange_parts(a, d);
  const arg_view exported{a.data, a.owner, h.exports.get(), access::read, arg_kind::indirect, 0, a.type, a.dim};
  run_halo_copy(h.exports->from, buffer_view(*h.sent, access::write, a), exported);
}

// Reads back what pack_exports packed, starts sending it and receiving the halo. The first
// read-back of a loop waits for the device's queue, so a loop packs every halo before it sends
// any: the queue is waited for once, not once a dat.
inline std::unique_ptr<halo_transfer> send_exports(const arg_view& a, const set_distribution& d) {
  halo_parts& h = *a.owner->halo;
  h.sent->array.ensure_host(h.sent->device());
  // The receive overwrites every value: the scatter uploads them.
  h.received->array.host_overwritten();
  return d.link->start(std::span<const std::byte>(h.sent->host), h.sent_offsets, std::span<std::byte>(h.received->host),
                       h.received_offsets);
}

// Waits for the halo and writes it in place.
inline void finish_exchange(const arg_view& a, halo_transfer& t) {
  t.wait();
  halo_parts& h = *a.owner->halo;
  const arg_view imported{a.data, a.owner, h.imports.get(), access::write, arg_kind::indirect, 0, a.type, a.dim};
  run_halo_copy(h.imports->from, imported, buffer_view(*h.received, access::read, a));
}

}  // namespace parloop::detail
