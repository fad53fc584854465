// SPDX-License-Identifier: MIT
// A callable passed down without its type and without allocating (C++26's std::function_ref):
// what lets the code below par_loop take a loop's callbacks as plain, non-template functions.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace parloop::detail {

template <class Signature>
class function_ref;

// Refers to the callable it is made from, which must outlive it: a parameter, or a member of a
// struct that is one (exec/loop/loop_call.hpp), never kept.
template <class R, class... P>
class function_ref<R(P...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, P...>)
      function_ref(F&& f)
  noexcept  // implicit, as std::function_ref is
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))), call_([](void* object, P... p) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(object), std::forward<P>(p)...);
        }) {}

  R operator()(P... p) const { return call_(object_, std::forward<P>(p)...); }

 private:
  void* object_;
  R (*call_)(void*, P...);
};

}  // namespace parloop::detail
