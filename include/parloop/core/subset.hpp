// SPDX-License-Identifier: MIT
// Subset: some elements of a set (a boundary, a subdomain), given by their indices. Dats and maps
// stay on the set, its superset; a loop over a subset runs them at the subset's elements.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/handle.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {
struct subset_state {
  subset_state(Set set, std::vector<index_t> user_indices, std::string subset_name)
      : superset(std::move(set)),
        name(std::move(subset_name)),
        indices(std::move(user_indices)),
        elements(indices),
        array(elements.data(), elements.size() * sizeof(index_t), superset.runtime().state()->transfers) {}
  subset_state(const subset_state&) = delete;
  subset_state& operator=(const subset_state&) = delete;

  Set superset;
  std::string name;
  // Names the subset among all a program makes, never reused: the colourings of loops over it
  // are kept under it (exec/loop/colors.hpp), and may outlive it.
  std::uint64_t id = next_id();
  // Ascending and distinct, in the user's numbering of the superset.
  std::vector<index_t> indices;
  // The same elements in the loops' numbering of the superset, ascending, so that a loop meets
  // them in memory order: `indices` themselves until pl::renumber reorders the superset.
  std::vector<index_t> elements;
  // The superset's numbering `elements` were made for (null: the user's).
  std::shared_ptr<const std::vector<index_t>> numbered_by;
  // `elements` on a device, as a map's values are: uploaded at first use, again once renumbered.
  mirrored_array array;

  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }

  // The elements in the superset's current numbering for loops.
  std::span<const index_t> loop_elements() {
    const std::shared_ptr<const std::vector<index_t>>& now = superset.state().loop_of_user;
    if (now != numbered_by) {
      for (std::size_t i = 0; i < indices.size(); ++i) {
        elements[i] = now ? (*now)[static_cast<std::size_t>(indices[i])] : indices[i];
      }
      std::sort(elements.begin(), elements.end());
      // In place: the array holds the elements' address.
      array.host_overwritten();
      numbered_by = now;
    }
    return elements;
  }
};
}  // namespace detail

// A handle: copies refer to the same subset. Indices are in the user's numbering of the superset
// (as a map's values are, also once pl::renumber has reordered it); they are sorted and
// duplicates dropped, as PyOP2's are. Empty is allowed. On a distributed set, the indices are
// this rank's local elements, halos included.
class Subset : public detail::shared_handle<detail::subset_state, detail::subset_handle_name> {
 public:
  // Braced values are indices (without this, `{0, 2}` would become the name).
  Subset(const Set& superset, std::initializer_list<index_t> indices, std::string name = {})
      : Subset(superset, std::span<const index_t>(indices.begin(), indices.size()), std::move(name)) {}
  Subset(const Set& superset, std::span<const index_t> indices, std::string name = {})
      : Subset(superset, std::vector<index_t>(indices.begin(), indices.end()), std::move(name)) {}
  Subset(const Set& superset, std::vector<index_t> indices, std::string name = {}) {
    if (name.empty()) name = detail::default_name("subset");
    for (std::size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= superset.size()) {
        throw data_error(parloop::detail::format("subset '{}': index {} (entry {}) is outside set '{}' of size {}",
                                                 name, indices[i], i, superset.name(), superset.size()));
      }
    }
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    state_ = std::make_shared<detail::subset_state>(superset, std::move(indices), std::move(name));
  }

  // A subset of a subset: `positions` index the parent's indices (its i-th element is the
  // parent's indices()[i]); the result is a subset of the parent's superset, as PyOP2's is.
  Subset(const Subset& parent, std::initializer_list<index_t> positions, std::string name = {})
      : Subset(parent, std::span<const index_t>(positions.begin(), positions.size()), std::move(name)) {}
  Subset(const Subset& parent, std::span<const index_t> positions, std::string name = {})
      : Subset(parent.superset(), of_parent(parent, positions), std::move(name)) {}

  const Set& superset() const { return state().superset; }
  const Runtime& runtime() const { return superset().runtime(); }
  const std::string& name() const { return state().name; }
  index_t size() const { return static_cast<index_t>(state().indices.size()); }
  bool empty() const { return state().indices.empty(); }
  // Ascending, distinct, in the user's numbering of the superset.
  std::span<const index_t> indices() const { return state().indices; }
  // The elements this rank owns, as Set::owned() counts a set's (the first owned() of indices();
  // all of them unless the superset is distributed over ranks).
  index_t owned() const {
    const std::vector<index_t>& i = state().indices;
    return static_cast<index_t>(std::lower_bound(i.begin(), i.end(), superset().owned()) - i.begin());
  }

  friend bool operator==(const Subset& a, const Subset& b) { return a.same_as(b); }

  // Set algebra, on subsets of one superset (a set stands for all its elements); the result is
  // a new subset of that superset.
  friend Subset operator|(const Subset& a, const Subset& b) {
    return combined(a, b, "|", [](const auto& x, const auto& y, auto out) {
      std::set_union(x.begin(), x.end(), y.begin(), y.end(), out);
    });
  }
  friend Subset operator&(const Subset& a, const Subset& b) {
    return combined(a, b, "&", [](const auto& x, const auto& y, auto out) {
      std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), out);
    });
  }
  friend Subset operator-(const Subset& a, const Subset& b) {
    return combined(a, b, "-", [](const auto& x, const auto& y, auto out) {
      std::set_difference(x.begin(), x.end(), y.begin(), y.end(), out);
    });
  }
  friend Subset operator^(const Subset& a, const Subset& b) {
    return combined(a, b, "^", [](const auto& x, const auto& y, auto out) {
      std::set_symmetric_difference(x.begin(), x.end(), y.begin(), y.end(), out);
    });
  }
  // The whole of a set, as a subset of it.
  static Subset all_of(const Set& s, std::string name = {}) {
    std::vector<index_t> every(static_cast<std::size_t>(s.size()));
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = static_cast<index_t>(i);
    return Subset(s, std::move(every), std::move(name));
  }

 private:
  static std::vector<index_t> of_parent(const Subset& parent, std::span<const index_t> positions) {
    std::vector<index_t> indices;
    indices.reserve(positions.size());
    const std::span<const index_t> from = parent.indices();
    for (std::size_t i = 0; i < positions.size(); ++i) {
      if (positions[i] < 0 || positions[i] >= parent.size()) {
        throw data_error(
            parloop::detail::format("a subset of subset '{}': position {} (entry {}) is outside it, of size {}",
                                    parent.name(), positions[i], i, parent.size()));
      }
      indices.push_back(from[static_cast<std::size_t>(positions[i])]);
    }
    return indices;
  }

  template <class Merge>
  static Subset combined(const Subset& a, const Subset& b, const char* op, Merge merge) {
    if (!(a.superset() == b.superset())) {
      throw argument_error(
          parloop::detail::format("subset '{}' {} subset '{}': subsets of different sets ('{}' and '{}')", a.name(), op,
                                  b.name(), a.superset().name(), b.superset().name()));
    }
    std::vector<index_t> out;
    const std::vector<index_t>& x = a.state().indices;
    const std::vector<index_t>& y = b.state().indices;
    merge(x, y, std::back_inserter(out));
    return Subset(a.superset(), std::move(out), parloop::detail::format("({} {} {})", a.name(), op, b.name()));
  }
};

// A set in set algebra with a subset of it: all its elements.
inline Subset operator|(const Subset& a, const Set& b) { return a | Subset::all_of(b, b.name()); }
inline Subset operator|(const Set& a, const Subset& b) { return Subset::all_of(a, a.name()) | b; }
inline Subset operator&(const Subset& a, const Set& b) { return a & Subset::all_of(b, b.name()); }
inline Subset operator&(const Set& a, const Subset& b) { return Subset::all_of(a, a.name()) & b; }
inline Subset operator-(const Subset& a, const Set& b) { return a - Subset::all_of(b, b.name()); }
inline Subset operator-(const Set& a, const Subset& b) { return Subset::all_of(a, a.name()) - b; }
inline Subset operator^(const Subset& a, const Set& b) { return a ^ Subset::all_of(b, b.name()); }
inline Subset operator^(const Set& a, const Subset& b) { return Subset::all_of(a, a.name()) ^ b; }

}  // namespace parloop
