// SPDX-License-Identifier: MIT
// What the kernel receives for each argument: rows of components (q[k]), tables of rows for
// whole-map arguments (q[j][k]); a one-component row is also its own component.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "parloop/config.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/dsl/element.hpp"
#include "parloop/error.hpp"

namespace parloop::dsl {

namespace detail {

template <class K>
void check_index_type() {
  if constexpr (!std::is_integral_v<K>) {
    static_assert(std::is_integral_v<value_t<K>>, "parloop: an argument is indexed by an integer");
  }
}

// A host index: any C++ integer, or an integer kernel value, checked against its bound.
template <class K>
index_t host_index(const K& k, int bound, std::size_t pos, const char* what) {
  check_index_type<K>();
  long long i = 0;
  if constexpr (std::is_integral_v<K>) i = static_cast<long long>(k);
  else i = static_cast<long long>(as_node(k).eval());
  if (i < 0 || i >= bound) {
    throw trace_error(fmt::format("argument {} has {} {}; index {} is out of range", pos, bound, what, i));
  }
  return static_cast<index_t>(i);
}

// A traced index: a C++ integer becomes a constant (checked while lowering), a kernel
// value stays computed.
template <class K>
auto symbolic_index(const K& k) {
  check_index_type<K>();
  if constexpr (std::is_integral_v<K>) return literal<int>(static_cast<int>(k));
  else return as_node(k);
}

}  // namespace detail

template <class T>
struct host_cursor {
  T* p;
  template <class K>
  host_place<T> at(const K& k, int dim, std::size_t pos) const {
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
  explicit row(Cursor c) : cursor_(c) {}

  template <class K>
  auto operator[](const K& k) const {
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
  explicit row(Cursor c) : base(c.at(0, 1, Pos)), cursor_(c) {}
  row(const row&) = default;

  using base::operator=;
  row& operator=(const row& v) {
    base::operator=(v);
    return *this;
  }

  template <class K>
  auto operator[](const K& k) const {
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
  host_cursor<T> row_at(const J& j, std::size_t pos) const {
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
  explicit table(Cursor c) : cursor_(c) {}

  template <class J>
  auto operator[](const J& j) const {
    auto c = cursor_.row_at(j, Pos);
    return row<decltype(c), Mode, Pos, Dim>(c);
  }
  int size() const { return cursor_.arity; }

 private:
  Cursor cursor_;
};

// The host backend's accessor of argument Pos at element e.
template <std::size_t Pos, class T, int Dim, access Mode, arg_kind Kind>
auto host_accessor(const arg<T, Dim, Mode, Kind>& a, index_t e) {
  T* data = a.data->host.data();
  if constexpr (Kind == arg_kind::direct) {
    return row<host_cursor<T>, Mode, Pos, Dim>({data + static_cast<std::ptrdiff_t>(e) * Dim});
  } else if constexpr (Kind == arg_kind::indirect) {
    const index_t target = a.map->values[static_cast<std::size_t>(e) * a.map->arity + a.slot];
    return row<host_cursor<T>, Mode, Pos, Dim>({data + static_cast<std::ptrdiff_t>(target) * Dim});
  } else if constexpr (Kind == arg_kind::whole_map) {
    const index_t* map_row = a.map->values.data() + static_cast<std::ptrdiff_t>(e) * a.map->arity;
    return table<host_table_cursor<T, Dim>, Mode, Pos, Dim>({data, map_row, a.map->arity});
  } else {
    return row<host_cursor<T>, Mode, Pos, Dim>({data});
  }
}

// The trace proxy of argument Pos: parameter Pos of the IR.
template <std::size_t Pos, class T, int Dim, access Mode, arg_kind Kind>
auto symbolic_accessor(const arg<T, Dim, Mode, Kind>& a) {
  const auto param = static_cast<ir::id>(Pos);
  if constexpr (Kind == arg_kind::whole_map) {
    return table<symbolic_table_cursor<T>, Mode, Pos, Dim>({param, a.map->arity});
  } else {
    return row<symbolic_cursor<T, no_slot>, Mode, Pos, Dim>({param, no_slot{}});
  }
}

}  // namespace parloop::dsl
