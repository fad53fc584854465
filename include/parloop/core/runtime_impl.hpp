// SPDX-License-Identifier: MIT
// The definitions of core/runtime.hpp's functions that open a runtime and find backends:
// compiled once into the library under PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop {

namespace detail {

PARLOOP_FUNC backend_status status_of(backend_kind kind, const settings& s) {
  if (kind == backend_kind::host) return {kind, true, ""};
  const backend_entry* entry = backend_entry_of(kind);
  return entry != nullptr ? entry->status(s) : backend_status{kind, false, not_built(kind)};
}

PARLOOP_FUNC void apply(runtime_state& state, const settings& s) {
  state.settings = s;
  state.default_conflicts = s.conflicts.value_or(conflicts::atomics);
  state.autotune = s.autotune;
  state.trace_checks = s.check_traces;
  process_settings().log.store(s.log);
  if (s.stats) process_settings().stats.store(true);
}

}  // namespace detail

PARLOOP_FUNC std::vector<backend_status> backends(const settings& s) {
  std::vector<backend_status> out{detail::status_of(backend_kind::cuda, s), detail::status_of(backend_kind::opencl, s),
                                  detail::status_of(backend_kind::threads, s),
                                  detail::status_of(backend_kind::host, s)};
  if (out[1].cpu_device) std::swap(out[1], out[2]);
  return out;
}

PARLOOP_FUNC Runtime Runtime::open_kind(backend_kind kind, const parloop::settings& s) {
  auto state = std::make_shared<detail::runtime_state>();
  state->kind = kind;
  detail::apply(*state, s);
  if (kind != backend_kind::host) {
    const detail::backend_entry* entry = detail::backend_entry_of(kind);
    const std::string reason = entry != nullptr ? entry->open(*state) : detail::not_built(kind);
    if (!reason.empty()) {
      throw backend_unavailable("backend '" + std::string(backend_name(kind)) + "' is not available: " + reason);
    }
  }
  return Runtime(std::move(state));
}

PARLOOP_FUNC Runtime Runtime::open_best(const parloop::settings& s) {
  const bool any_device_named = !s.device.empty();
  std::string reasons;
  for (const backend_status& b : backends(s)) {
    if (runs_lambdas(b.kind) && any_device_named) continue;
    if (b.available) return open_kind(b.kind, s);
    if (b.device_requested) {
      throw backend_unavailable("backend '" + std::string(backend_name(b.kind)) + "' is not available: " + b.reason);
    }
    reasons += parloop::detail::format("\n  {}: {}", backend_name(b.kind), b.reason);
  }
  if (any_device_named) {
    throw backend_unavailable(
        parloop::detail::format("PARLOOP_DEVICE='{}' names no device of any backend:{}", s.device, reasons));
  }
  throw backend_unavailable("no backend is available");
}

}  // namespace parloop

PARLOOP_COLD_END
