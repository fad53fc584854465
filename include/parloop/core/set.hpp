// SPDX-License-Identifier: MIT
// Set: a collection of mesh entities (cells, edges, nodes) that loops iterate over.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "parloop/config.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/error.hpp"

namespace parloop {

namespace detail {
struct set_state {
  Runtime runtime;
  index_t size;
  std::string name;
};

inline std::string default_name(const char* kind) {
  static std::atomic<unsigned> counter{0};
  return std::string(kind) + "#" + std::to_string(counter.fetch_add(1));
}
}  // namespace detail

// A handle: copies refer to the same set, and two sets are the same only if they are one.
class Set {
 public:
  Set(const Runtime& rt, index_t size, std::string name = {}) {
    if (size < 0) throw data_error("set '" + name + "' has negative size " + std::to_string(size));
    if (name.empty()) name = detail::default_name("set");
    state_ = std::make_shared<detail::set_state>(detail::set_state{rt, size, std::move(name)});
  }

  index_t size() const { return state_->size; }
  const std::string& name() const { return state_->name; }
  const Runtime& runtime() const { return state_->runtime; }

  friend bool operator==(const Set& a, const Set& b) { return a.state_ == b.state_; }

 private:
  std::shared_ptr<const detail::set_state> state_;
};

}  // namespace parloop
