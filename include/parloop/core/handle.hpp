// SPDX-License-Identifier: MIT
// What parloop's handles (Set, Map, Subset, Dat, Global; Kernel and SourceKernel, through
// exec/kernel/kernel.hpp's kernel_handle) are: a shared pointer to their state, which copies share. A
// handle moved from holds nothing; using it is an error that names the handle, never a crash.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "parloop/error.hpp"

namespace parloop::detail {

// The names errors give the data model's handles (exec/kernel/kernel.hpp names the kernels').
inline constexpr char set_handle_name[] = "Set";
inline constexpr char map_handle_name[] = "Map";
inline constexpr char subset_handle_name[] = "Subset";
inline constexpr char dat_handle_name[] = "Dat";
inline constexpr char global_handle_name[] = "Global";

template <class State, const char* Name>
class shared_handle {
 public:
  // What the layers above read and change.
  State& state() const {
    if (!state_) [[unlikely]]
      moved_from();
    return *state_;
  }

 protected:
  shared_handle() = default;
  explicit shared_handle(std::shared_ptr<State> made) : state_(std::move(made)) {}
  // Two handles are the same only if they share one state.
  bool same_as(const shared_handle& other) const { return state_ == other.state_; }

  std::shared_ptr<State> state_;

 private:
  [[noreturn]] static void moved_from() {
    throw argument_error(std::string("a ") + Name + " that was moved from is used");
  }
};

}  // namespace parloop::detail
