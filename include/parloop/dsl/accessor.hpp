// SPDX-License-Identifier: MIT
// What the kernel receives for each argument: rows of components (q[k]), tables of rows for
// whole-map arguments (q[j][k]); a one-component row is also its own component.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include "parloop/config.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/dsl/element.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::dsl {

namespace detail {

template <class K>
PARLOOP_INLINE void check_index_type() {
  if constexpr (!std::is_integral_v<K>) {
    static_assert(std::is_integral_v<value_t<K>>, "parloop: an argument is indexed by an integer");
  }
}

// Out of line and cold, so that the check it fails stays small enough to inline into every
// index of a kernel: with the formatted throw inline, compilers call host_index instead, at
// every index of every element.
[[noreturn, gnu::cold, gnu::noinline]] inline void index_out_of_range(long long i, int bound, std::size_t pos,
                                                                      const char* what) {
  throw trace_error(parloop::detail::format("argument {} has {} {}; index {} is out of range", pos, bound, what, i));
}

// A host index: any C++ integer, or an integer kernel value, checked against its bound.
template <class K>
PARLOOP_INLINE index_t host_index(const K& k, int bound, std::size_t pos, const char* what) {
  check_index_type<K>();
  long long i = 0;
  if constexpr (std::is_integral_v<K>)
    i = static_cast<long long>(k);
  else
    i = static_cast<long long>(as_node(k).eval());
  if (i < 0 || i >= bound) index_out_of_range(i, bound, pos, what);
  return static_cast<index_t>(i);
}

// A traced index: a C++ integer becomes a constant (checked while lowering), a kernel
// value stays computed.
template <class K>
auto symbolic_index(const K& k) {
  check_index_type<K>();
  if constexpr (std::is_integral_v<K>)
    return literal<int>(static_cast<int>(k));
  else
    return as_node(k);
}

}  // namespace detail

template <class T>
struct host_cursor {
  T* p;
  template <class K>
  PARLOOP_INLINE host_place<T> at(const K& k, int dim, std::size_t pos) const {
    return {p + detail::host_index(k, dim, pos, "components")};
  }
};

template <class T, class Slot>
struct symbolic_cursor {
  ir::id param;
  Slot slot;
  template <class K>
  auto at(const K& k, int, std::size_t) const {
    using C = decltype(detail::symbolic_index(k));
    return symbolic_place<T, Slot, C>{param, slot, detail::symbolic_index(k)};
  }
};

template <class Cursor, access Mode, std::size_t Pos, int Dim>
class row {
 public:
  PARLOOP_INLINE explicit row(Cursor c) : cursor_(c) {}

  template <class K>
  PARLOOP_INLINE auto operator[](const K& k) const {
    auto place = cursor_.at(k, Dim, Pos);
    return element<decltype(place), Mode, Pos>(place);
  }
  static constexpr int size() { return Dim; }

 private:
  Cursor cursor_;
};

template <class Cursor>
using first_place = decltype(std::declval<const Cursor&>().at(0, 1, 0));

template <class Cursor, access Mode, std::size_t Pos>
class row<Cursor, Mode, Pos, 1> : public element<first_place<Cursor>, Mode, Pos> {
  using base = element<first_place<Cursor>, Mode, Pos>;

 public:
  PARLOOP_INLINE explicit row(Cursor c) : base(c.at(0, 1, Pos)), cursor_(c) {}
  row(const row&) = default;

  using base::operator=;
  PARLOOP_INLINE row& operator=(const row& v) {
    base::operator=(v);
    return *this;
  }

  template <class K>
  PARLOOP_INLINE auto operator[](const K& k) const {
    auto place = cursor_.at(k, 1, Pos);
    return element<decltype(place), Mode, Pos>(place);
  }
  static constexpr int size() { return 1; }

 private:
  Cursor cursor_;
};

template <class T, int Dim>
struct host_table_cursor {
  T* data;
  const index_t* map_row;
  int arity;
  template <class J>
  PARLOOP_INLINE host_cursor<T> row_at(const J& j, std::size_t pos) const {
    return {data + static_cast<std::ptrdiff_t>(map_row[detail::host_index(j, arity, pos, "map slots")]) * Dim};
  }
};

template <class T>
struct symbolic_table_cursor {
  ir::id param;
  int arity;
  template <class J>
  auto row_at(const J& j, std::size_t) const {
    using S = decltype(detail::symbolic_index(j));
    return symbolic_cursor<T, S>{param, detail::symbolic_index(j)};
  }
};

// A whole-map argument: q[j] is the row of the map's slot j.
template <class Cursor, access Mode, std::size_t Pos, int Dim>
class table {
 public:
  PARLOOP_INLINE explicit table(Cursor c) : cursor_(c) {}

  template <class J>
  PARLOOP_INLINE auto operator[](const J& j) const {
    auto c = cursor_.row_at(j, Pos);
    return row<decltype(c), Mode, Pos, Dim>(c);
  }
  int size() const { return cursor_.arity; }

 private:
  Cursor cursor_;
};

// The host backend's view of argument Pos for one loop: its pointers read once, so that the
// loop over elements keeps them in registers (and a direct loop vectorises); at(e) is what the
// kernel receives for element e.
template <std::size_t Pos, class A>
class host_binding;

template <std::size_t Pos, class T, int Dim, access Mode>
class host_binding<Pos, arg<T, Dim, Mode, arg_kind::direct>> {
 public:
  host_binding(const arg<T, Dim, Mode, arg_kind::direct>& a, std::byte*) : data_(a.data->host.data()) {}
  PARLOOP_INLINE auto at(index_t e) const {
    return row<host_cursor<T>, Mode, Pos, Dim>({data_ + static_cast<std::ptrdiff_t>(e) * Dim});
  }
  void finish() {}

 private:
  T* data_;
};

template <std::size_t Pos, class T, int Dim, access Mode>
class host_binding<Pos, arg<T, Dim, Mode, arg_kind::indirect>> {
 public:
  host_binding(const arg<T, Dim, Mode, arg_kind::indirect>& a, std::byte*)
      : data_(a.data->host.data()), targets_(a.map->values.data() + a.slot), arity_(a.map->arity) {}
  PARLOOP_INLINE auto at(index_t e) const {
    const index_t target = targets_[static_cast<std::ptrdiff_t>(e) * arity_];
    return row<host_cursor<T>, Mode, Pos, Dim>({data_ + static_cast<std::ptrdiff_t>(target) * Dim});
  }
  void finish() {}

 private:
  T* data_;
  const index_t* targets_;  // the slot's column of the map
  std::ptrdiff_t arity_;
};

template <std::size_t Pos, class T, int Dim, access Mode>
class host_binding<Pos, arg<T, Dim, Mode, arg_kind::whole_map>> {
 public:
  host_binding(const arg<T, Dim, Mode, arg_kind::whole_map>& a, std::byte*)
      : data_(a.data->host.data()), map_(a.map->values.data()), arity_(a.map->arity) {}
  PARLOOP_INLINE auto at(index_t e) const {
    return table<host_table_cursor<T, Dim>, Mode, Pos, Dim>(
        {data_, map_ + static_cast<std::ptrdiff_t>(e) * arity_, arity_});
  }
  void finish() {}

 private:
  T* data_;
  const index_t* map_;
  int arity_;
};

// A global: the loop reads and combines into a copy of its own, which the compiler may keep in
// registers (through the global's own memory, every increment would be a load and a store that
// no other store could be proven not to touch); a modified global gets the copy back once, after
// the loop. The same operations in the same order: the same bits. No other argument of the loop
// is this global where either modifies it (dsl/aliasing.hpp). With `partial` (a block of the
// threads backend), the copy starts from and goes back to the block's partial instead, whose
// bytes hold Dim values of T (copied, not pointed to: they are bytes of a shared buffer).
template <std::size_t Pos, class T, int Dim, access Mode>
class host_binding<Pos, arg<T, Dim, Mode, arg_kind::global>> {
 public:
  host_binding(const arg<T, Dim, Mode, arg_kind::global>& a, std::byte* partial)
      : home_(a.data->host.data()), partial_(partial) {
    if (partial_ != nullptr)
      std::memcpy(copy_, partial_, sizeof copy_);
    else
      std::copy_n(home_, Dim, copy_);
  }
  PARLOOP_INLINE auto at(index_t) { return row<host_cursor<T>, Mode, Pos, Dim>({copy_}); }
  void finish() {
    if constexpr (is_modified(Mode)) {
      if (partial_ != nullptr)
        std::memcpy(partial_, copy_, sizeof copy_);
      else
        std::copy_n(copy_, Dim, home_);
    }
  }

 private:
  T* home_;
  std::byte* partial_;
  T copy_[Dim];
};

// The trace proxy of argument Pos: parameter Pos of the IR, a whole map's of `arity` slots (the
// map's, unless a loop over an extruded set's interior facets gives it twice as many).
template <std::size_t Pos, class T, int Dim, access Mode, arg_kind Kind>
auto symbolic_accessor(const arg<T, Dim, Mode, Kind>& a, int arity = 0) {
  const auto param = static_cast<ir::id>(Pos);
  if constexpr (Kind == arg_kind::whole_map) {
    return table<symbolic_table_cursor<T>, Mode, Pos, Dim>({param, arity > 0 ? arity : a.map->arity});
  } else {
    return row<symbolic_cursor<T, no_slot>, Mode, Pos, Dim>({param, no_slot{}});
  }
}

}  // namespace parloop::dsl
