// SPDX-License-Identifier: MIT
// The definitions of core/set.hpp's constructors: compiled once into the library under
// PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "parloop/config.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop {

PARLOOP_FUNC std::string detail::default_name(const char* kind) {
  static std::atomic<unsigned> counter{0};
  return std::string(kind) + "#" + std::to_string(counter.fetch_add(1));
}

PARLOOP_FUNC Set::Set(const Runtime& rt, index_t size, std::string name) {
  if (size < 0) throw data_error("set '" + name + "' has negative size " + std::to_string(size));
  if (name.empty()) name = detail::default_name("set");
  state_ = std::make_shared<detail::set_state>(
      detail::set_state{rt, size, std::move(name), nullptr, nullptr, nullptr, {}, {}, nullptr, 0, false});
}

PARLOOP_FUNC Set::Set(const Runtime& rt, std::shared_ptr<const detail::set_distribution> d, std::string name) {
  if (!d || !d->link)
    throw argument_error(parloop::detail::format("set '{}': a distribution without a link between ranks", name));
  const auto size = static_cast<index_t>(d->global.size());
  if (!(0 <= d->core_end && d->core_end <= d->owned_end && d->owned_end <= d->exec_end && d->exec_end <= size)) {
    throw argument_error(parloop::detail::format("set '{}': regions ending at {}, {}, {} of {} elements", name,
                                                 d->core_end, d->owned_end, d->exec_end, size));
  }
  state_ = std::make_shared<detail::set_state>(
      detail::set_state{rt, size, std::move(name), std::move(d), nullptr, nullptr, {}, {}, nullptr, 0, false});
}

}  // namespace parloop

PARLOOP_COLD_END
