// SPDX-License-Identifier: MIT
// pl::copy: one dat's values into another's, on their whole set or at a subset's elements only
// (PyOP2's Dat.copy with a subset). A par_loop, so it runs where the dats' values are, on every
// backend, and moves nothing to the host.
#pragma once

#include "parloop/core/dat.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/loop/par_loop.hpp"
#include "parloop/format.hpp"

namespace parloop {

namespace detail {
template <class T, int Dim>
const auto& copy_kernel() {
  static const auto k = kernel("parloop_copy", [](auto from, auto to) {
    for (int c = 0; c < Dim; ++c) to[c] = from[c];
  });
  return k;
}

template <class T, int Dim>
void check_copy(const Dat<T, Dim>& from, const Dat<T, Dim>& to) {
  if (!(from.set() == to.set())) {
    throw argument_error(
        parloop::detail::format("pl::copy: dat '{}' is on set '{}' and dat '{}' on set '{}': a copy is between "
                                "dats of one set",
                                from.name(), from.set().name(), to.name(), to.set().name()));
  }
}
}  // namespace detail

// `to`'s values become `from`'s, element by element; the two are on one set (a dat onto itself
// changes nothing).
template <class T, int Dim>
void copy(const Dat<T, Dim>& from, Dat<T, Dim>& to) {
  detail::check_copy(from, to);
  if (&from.state() == &to.state()) return;
  par_loop(detail::copy_kernel<T, Dim>(), from.set(), from(READ), to(WRITE));
}

// The same at the elements of `at`, a subset of the dats' set; the others keep their values.
template <class T, int Dim>
void copy(const Dat<T, Dim>& from, Dat<T, Dim>& to, const Subset& at) {
  detail::check_copy(from, to);
  if (!(at.superset() == from.set())) {
    throw argument_error(
        parloop::detail::format("pl::copy: subset '{}' is of set '{}', and dats '{}' and '{}' are on set '{}'",
                                at.name(), at.superset().name(), from.name(), to.name(), from.set().name()));
  }
  if (&from.state() == &to.state()) return;
  par_loop(detail::copy_kernel<T, Dim>(), at, from(READ), to(WRITE));
}

}  // namespace parloop
