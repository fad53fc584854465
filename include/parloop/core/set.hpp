// SPDX-License-Identifier: MIT
// Set: a collection of mesh entities (cells, edges, nodes) that loops iterate over.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/handle.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {
struct map_state;
class mirrored_array;

struct set_state {
  Runtime runtime;
  index_t size;
  std::string name;
  // Null unless the set is distributed over ranks.
  std::shared_ptr<const set_distribution> distribution;
  // Null unless renumbered (order/renumber.hpp): loops' element i is the user's user_of_loop[i],
  // and the user's element u is loops' loop_of_user[u].
  std::shared_ptr<const std::vector<index_t>> user_of_loop, loop_of_user;
  // What renumbering the set reorders: the maps from or to it, its dats' arrays. Registered at
  // their construction, on the runtime's thread; those gone are skipped.
  std::vector<std::weak_ptr<map_state>> maps;
  std::vector<std::weak_ptr<mirrored_array>> arrays;
  // An extruded set (core/extruded_set.hpp): the set whose elements are its columns, and its
  // entities per column; null and 0 for any other set. Whether some extruded set has this set
  // as its base (which pl::renumber then refuses to reorder).
  std::shared_ptr<set_state> base;
  index_t layers = 0;
  bool extruded_over = false;
};

// Adds `made` to a set's registry; those gone are dropped whenever the registry has doubled, so
// that a program making temporary dats on a set does not grow it without bound.
template <class T>
void register_with(std::vector<std::weak_ptr<T>>& registry, const std::shared_ptr<T>& made) {
  if (registry.size() >= 16 && (registry.size() & (registry.size() - 1)) == 0) {
    std::erase_if(registry, [](const std::weak_ptr<T>& w) { return w.expired(); });
  }
  registry.push_back(made);
}

// A name for what the program did not name: `kind`#<n>.
PARLOOP_FUNC std::string default_name(const char* kind);
}  // namespace detail

// A handle: copies refer to the same set, and two sets are the same only if they are one.
class Set : public detail::shared_handle<detail::set_state, detail::set_handle_name> {
 public:
  Set(const Runtime& rt, index_t size, std::string name = {});
  // This rank's share of a set distributed over ranks (pl::mpi::distribute makes them): its
  // elements are the distribution's local ones, halos included.
  Set(const Runtime& rt, std::shared_ptr<const detail::set_distribution> d, std::string name);

  index_t size() const { return state().size; }
  const std::string& name() const { return state().name; }
  const Runtime& runtime() const { return state().runtime; }
  // Null unless the set is distributed over ranks.
  const detail::set_distribution* distribution() const { return state().distribution.get(); }
  // The elements this rank owns: the first owned() of size(); all of them unless distributed.
  index_t owned() const { return state().distribution ? state().distribution->owned_end : state().size; }
  // The elements on all ranks together: size() unless distributed.
  index_t global_size() const { return state().distribution ? state().distribution->global_size : state().size; }

  // Whether pl::renumber has put the set's elements in another order for loops; the user's
  // element loop_element is then user_number(loop_element).
  bool renumbered() const { return state().user_of_loop != nullptr; }
  index_t user_number(index_t loop_element) const {
    return state().user_of_loop ? (*state().user_of_loop)[static_cast<std::size_t>(loop_element)] : loop_element;
  }

  // Whether the set is extruded (an ExtrudedSet, core/extruded_set.hpp): a loop over it runs
  // the layers of each column of its base.
  bool extruded() const { return state().base != nullptr; }

  friend bool operator==(const Set& a, const Set& b) { return a.same_as(b); }

 protected:
  explicit Set(std::shared_ptr<detail::set_state> s) : shared_handle(std::move(s)) {}
  const std::shared_ptr<detail::set_state>& shared_state() const { return state_; }
};

}  // namespace parloop

#if !PARLOOP_COMPILED
#include "parloop/core/set_impl.hpp"
#endif
