// SPDX-License-Identifier: MIT
// The definition of Map's constructor (core/map.hpp): compiled once into the library under
// PARLOOP_COMPILED, else inline in every program.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

PARLOOP_FUNC Map::Map(const Set& from, const Set& to, int arity, std::span<const index_t> values, std::string name) {
  if (name.empty()) name = detail::default_name("map");
  if (!(from.runtime() == to.runtime())) {
    throw argument_error(parloop::detail::format("map '{}': sets '{}' and '{}' belong to different runtimes", name,
                                                 from.name(), to.name()));
  }
  if (arity < 1) throw data_error(parloop::detail::format("map '{}': arity must be at least 1, got {}", name, arity));
  const std::size_t expected = static_cast<std::size_t>(from.size()) * static_cast<std::size_t>(arity);
  const detail::set_distribution* d = from.distribution();
  const bool executed_rows =
      d != nullptr && values.size() == static_cast<std::size_t>(d->exec_end) * static_cast<std::size_t>(arity);
  if (values.size() != expected && !executed_rows) {
    throw data_error(parloop::detail::format(
        "map '{}': expected {} values ({} elements of '{}' x arity {}{}), got {}", name, expected, from.size(),
        from.name(), arity,
        d != nullptr ? parloop::detail::format(", or {} for the {} elements this rank executes",
                                               static_cast<std::size_t>(d->exec_end) * static_cast<std::size_t>(arity),
                                               d->exec_end)
                     : "",
        values.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= to.size()) {
      throw data_error(parloop::detail::format(
          "map '{}': entry {} (element {}, slot {}) is {}, outside target set '{}' of size {}", name, i,
          i / static_cast<std::size_t>(arity), i % static_cast<std::size_t>(arity), values[i], to.name(), to.size()));
    }
  }
  state_ = std::make_shared<detail::map_state>(from, to, arity, std::vector<index_t>(values.begin(), values.end()),
                                               std::move(name));
  detail::register_with(from.state().maps, state_);
  if (!(to == from)) detail::register_with(to.state().maps, state_);
  // Values given in the user's numbering, of sets the loops see in another order.
  if (from.renumbered() || to.renumbered()) {
    state_->reorder(
        from.renumbered() ? std::span<const index_t>(*from.state().user_of_loop) : std::span<const index_t>{},
        to.renumbered() ? std::span<const index_t>(*to.state().loop_of_user) : std::span<const index_t>{});
  }
}

}  // namespace parloop
