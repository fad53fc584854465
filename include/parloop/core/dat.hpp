// SPDX-License-Identifier: MIT
// Dat: Dim values of type T on every element of a set.
#pragma once

#include <initializer_list>
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/array_state.hpp"
#include "parloop/core/handle.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {
// A dat's storage: `dim` values per element of `set`, from `values` in the user's numbering
// (set.size() * dim of them) or zeros where it is null, registered with the set so that
// renumbering it reorders them. On a set already renumbered, the values are put in the loops'
// order as they are placed, and the user's copy is made when a view first asks for it.
template <class T>
std::shared_ptr<array_state<T>> make_dat_state(const Set& set, const T* values, std::string name, int dim) {
  const auto row = static_cast<std::size_t>(dim);
  const std::shared_ptr<const std::vector<index_t>>& user_of_loop = set.state().user_of_loop;
  const auto at = [&](index_t e) { return static_cast<std::size_t>(e) * row; };
  host_vector<T> host = placed<T>(set.runtime(), set, at(set.size()), [&](range part, T* out) {
    if (values == nullptr) {
      std::fill(out + at(part.start), out + at(part.end), T{});
    } else if (!user_of_loop) {
      std::copy(values + at(part.start), values + at(part.end), out + at(part.start));
    } else {
      for (index_t e = part.start; e < part.end; ++e)
        std::copy_n(values + at((*user_of_loop)[static_cast<std::size_t>(e)]), row, out + at(e));
    }
  });
  auto state = std::make_shared<array_state<T>>(set.runtime(), set, std::move(host), std::move(name), dim);
  register_with(set.state().arrays, std::shared_ptr<mirrored_array>(state, &state->array));
  if (user_of_loop) state->array.adopt_loop_order(user_of_loop);
  return state;
}
}  // namespace detail

// A handle: copies share the data.
template <class T, int Dim = 1>
class Dat : public detail::shared_handle<detail::array_state<T>, detail::dat_handle_name> {
  using handle = detail::shared_handle<detail::array_state<T>, detail::dat_handle_name>;
  static_assert(is_data_scalar<T>, "parloop: a Dat holds float, double, std::int32_t or std::int64_t");
  static_assert(Dim >= 1, "parloop: a Dat has at least one component per element");

 public:
  using value_type = T;
  static constexpr int dim = Dim;

  // Zero-initialised.
  explicit Dat(const Set& set, std::string name = {}) : Dat(set, nullptr, std::move(name)) {}

  // From host data: set.size() * Dim values, element by element.
  Dat(const Set& set, std::span<const T> values, std::string name = {}) : Dat(set, &values, std::move(name)) {}
  // Braced values are values (without this, `{1, 2, 3}` would become the name).
  Dat(const Set& set, std::initializer_list<T> values, std::string name = {})
      : Dat(set, std::span<const T>(values.begin(), values.size()), std::move(name)) {}

  const Set& set() const { return *state().set; }
  const std::string& name() const { return state().name; }
  // Number of values: set().size() * dim.
  std::size_t size() const { return state().host.size(); }

  // The current values, copied back from the device first if they are stale there. On a set
  // pl::renumber has reordered, in the user's numbering: a copy, made when a loop has changed
  // them since the last view.
  std::span<const T> host() const { return host_view(READ); }
  std::span<const T> host_view(access_tag<access::read>) const {
    detail::mirrored_array& a = state().array;
    if (a.renumbered()) return {reinterpret_cast<const T*>(a.user_bytes(state().device())), state().host.size()};
    a.ensure_host(state().device());
    return state().host;
  }
  // For writing on the host: afterwards the device copy is stale. A WRITE view is for writing
  // every value, so a stale host copy is not fetched first; an RW view fetches it.
  template <access Mode>
  requires(Mode == access::write || Mode == access::rw) std::span<T> host_view(access_tag<Mode>) {
    detail::mirrored_array& a = state().array;
    // On a distributed set, written values may be owned ones that other ranks hold as halo.
    state().halo_current = false;
    if (a.renumbered()) {
      if constexpr (Mode == access::write)
        a.user_overwritten();
      else
        a.user_written(state().device());
      return {reinterpret_cast<T*>(a.user_bytes(state().device())), state().host.size()};
    }
    if constexpr (Mode == access::write)
      a.host_overwritten();
    else
      a.host_written(state().device());
    return state().host;
  }

  // Arguments of par_loop: direct, through one slot of a map, or through the whole map.
  template <access Mode>
  arg<T, Dim, Mode, arg_kind::direct> operator()(access_tag<Mode>) const {
    return {&state()};
  }
  template <access Mode>
  arg<T, Dim, Mode, arg_kind::indirect> operator()(access_tag<Mode>, const Map& map, int slot) const {
    return {&state(), &map.state(), slot};
  }
  template <access Mode>
  arg<T, Dim, Mode, arg_kind::whole_map> operator()(access_tag<Mode>, const Map& map) const {
    return {&state(), &map.state(), 0};
  }

  using handle::state;

 private:
  using handle::state_;

  // No values (null): zeros.
  Dat(const Set& set, const std::span<const T>* values, std::string name) {
    if (name.empty()) name = detail::default_name("dat");
    const std::size_t expected = static_cast<std::size_t>(set.size()) * Dim;
    if (values && values->size() != expected) {
      throw data_error(parloop::detail::format("dat '{}': expected {} values ({} elements of '{}' x dim {}), got {}",
                                               name, expected, set.size(), set.name(), Dim, values->size()));
    }
    state_ = detail::make_dat_state(set, values ? values->data() : nullptr, std::move(name), Dim);
  }
};

}  // namespace parloop
