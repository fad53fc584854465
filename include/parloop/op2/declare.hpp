// SPDX-License-Identifier: MIT
// OP2's declarations and the reading of a dat's values: op_decl_set, op_decl_map, op_decl_dat
// (and its temporary form), op_decl_const, op_fetch_data. Each checks what it is given and copies
// the user's arrays, as OP2 does: the user may free them afterwards.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "parloop/core/dat.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/set.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/format.hpp"
#include "parloop/identifier.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/op2/types.hpp"

namespace parloop::op2 {

inline std::string name_or(const char* name, std::string_view what, std::size_t number) {
  return name != nullptr && *name != '\0' ? std::string(name) : parloop::detail::format("{}{}", what, number);
}

// Over MPI the mesh is declared, then distributed once: what is declared afterwards would have no
// share on the ranks.
inline void refuse_after_partition(const program& p, std::string_view call, const std::string& name) {
  if (p.mpi && p.mpi->partitioned()) {
    throw argument_error(parloop::detail::format(
        "{} '{}' after op_partition: over MPI every set and map is declared before it", call, name));
  }
}

inline op_set_core* decl_set(int size, const char* name) {
  program& p = program::current("op_decl_set");
  const std::string called = name_or(name, "set", p.sets.size());
  if (size < 0)
    throw argument_error(parloop::detail::format("op_decl_set '{}': the size is {}, below 0", called, size));
  refuse_after_partition(p, "op_decl_set", called);
  // Over MPI, until op_partition, a set of this rank's block.
  p.sets.push_back(std::make_unique<op_set_core>(static_cast<int>(p.sets.size()), Set(p.runtime, size, called)));
  if (p.mpi) p.mpi->declare_set(*p.sets.back());
  return p.sets.back().get();
}

inline void check_set(const op_set_core* s, std::string_view call, std::string_view what) {
  if (s == nullptr) throw argument_error(parloop::detail::format("{}: the {} set is null", call, what));
}

// `values` is `dim` entries per element of `from`, each an element of `to` (`long` for OP2's
// long-index form): each is checked here, by parloop's map.
template <class I>
op_map_core* decl_map(op_set_core* from, op_set_core* to, int dim, const I* values, const char* name) {
  program& p = program::current("op_decl_map");
  const std::string called = name_or(name, "map", p.maps.size());
  const std::string call = parloop::detail::format("op_decl_map '{}'", called);
  check_set(from, call, "source");
  check_set(to, call, "target");
  if (dim < 1)
    throw argument_error(
        parloop::detail::format("{}: the dimension is {}; a map has at least one entry per element", call, dim));
  const std::size_t count = static_cast<std::size_t>(from->size) * static_cast<std::size_t>(dim);
  if (values == nullptr && count > 0) throw argument_error(parloop::detail::format("{}: the values are null", call));
  std::vector<int> given(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (values[i] < std::numeric_limits<int>::min() || values[i] > std::numeric_limits<int>::max()) {
      throw argument_error(
          parloop::detail::format("{}: entry {} of element {} is {}, past the int range parloop's maps hold", call,
                                  i % static_cast<std::size_t>(dim), i / static_cast<std::size_t>(dim), values[i]));
    }
    given[i] = static_cast<int>(values[i]);
  }
  refuse_after_partition(p, "op_decl_map", called);
  // Over MPI the values are global numbers: the map is made, and checked, when op_partition
  // distributes the mesh.
  std::optional<Map> m;
  if (!p.mpi) m.emplace(*from->set, *to->set, dim, std::span<const index_t>(given), called);
  p.maps.push_back(std::make_unique<op_map_core>(static_cast<int>(p.maps.size()), from, to, dim, std::move(given),
                                                 std::move(m), called));
  if (p.mpi) p.mpi->declare_map(*p.maps.back());
  return p.maps.back().get();
}

// The dat's scalar type: the one the type name says, which must be the data's own where the data
// has a type (not char or void).
template <class T>
scalar_type dat_scalar(const char* type, std::string_view what) {
  const scalar_type named = checked_scalar(type, what);
  if constexpr (constexpr std::optional<scalar_type> data = scalar_of_data<T>(); data.has_value()) {
    if (*data != named) {
      throw data_error(
          parloop::detail::format("{}: type \"{}\" is declared for data of type {}", what, type, type_name(*data)));
    }
  }
  return named;
}

template <class T>
op_dat_core* decl_dat(op_set_core* set, int dim, const char* type, const T* data, const char* name, bool temporary) {
  program& p = program::current(temporary ? "op_decl_dat_temp" : "op_decl_dat");
  const std::string called = name_or(name, "dat", p.dats.size());
  const std::string call = parloop::detail::format("{} '{}'", temporary ? "op_decl_dat_temp" : "op_decl_dat", called);
  check_set(set, call, "");
  if (dim < 1)
    throw argument_error(
        parloop::detail::format("{}: the dimension is {}; a dat has at least one value per element", call, dim));
  const scalar_type t = dat_scalar<T>(type, call);
  if (p.mpi && p.mpi->partitioned() && data != nullptr) {
    throw argument_error(
        parloop::detail::format("{}: values after op_partition: over MPI a dat with values is declared before it "
                                "(a temporary, or one without values, after it starts at zero)",
                                call));
  }
  // Without data (a temporary's, or null) the values start at zero.
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  const detail::any_array made = detail::make_any_dat(*set->set, t, bytes, called, dim);
  p.dats.push_back(std::make_unique<op_dat_core>(static_cast<int>(p.dats.size()), set, dim, t, type, made.owner,
                                                 *made.values, temporary));
  p.dats.back()->keep_host_copy(bytes);
  if (p.mpi && !p.mpi->partitioned()) p.mpi->declare_dat(*p.dats.back(), bytes);
  return p.dats.back().get();
}

inline void check_dat(const op_dat_core* d, std::string_view call) {
  if (d == nullptr) throw argument_error(parloop::detail::format("{}: the dat is null", call));
}

// Forgets a temporary dat: its storage is freed once no loop holds it. 1, as OP2's, when done.
inline int free_dat_temp(op_dat_core* d) {
  program& p = program::current("op_free_dat_temp");
  check_dat(d, "op_free_dat_temp");
  if (!d->temporary) {
    throw argument_error(parloop::detail::format(
        "op_free_dat_temp: dat '{}' was declared by op_decl_dat, not op_decl_dat_temp", d->name_text));
  }
  std::erase_if(p.dats, [&](const std::unique_ptr<op_dat_core>& o) { return o.get() == d; });
  return 1;  // OP2's success
}

// The dat's values in the user's numbering, current.
inline const std::byte* user_values(op_dat_core& d) {
  detail::mirrored_array& a = *d.array;
  if (a.renumbered()) return a.user_bytes(d.state->device());
  a.ensure_host(d.state->device());
  return a.host_bytes();
}

// Copies elements [low, high] of the dat into `out`.
// Over MPI, `whole` numbers [low, high] in the whole set (op_fetch_data_idx), else in this
// rank's declared block (op_fetch_data).
template <class T>
void fetch_data(op_dat_core* d, T* out, int low, int high, std::string_view call, bool whole = false) {
  check_dat(d, call);
  if constexpr (constexpr std::optional<scalar_type> data = scalar_of_data<T>(); data.has_value()) {
    if (*data != d->scalar) {
      throw data_error(parloop::detail::format("{}: dat '{}' holds {}, read into {}", call, d->name_text, d->type_text,
                                               type_name(*data)));
    }
  }
  const int elements = whole ? global_size(d->set) : d->set->size;
  if (low < 0 || high >= elements || low > high + 1) {
    throw argument_error(parloop::detail::format("{}: elements [{}, {}] of dat '{}', whose set '{}' has {}", call, low,
                                                 high, d->name_text, d->set->name_text, elements));
  }
  if (out == nullptr && high >= low)
    throw argument_error(parloop::detail::format("{}: the buffer for dat '{}' is null", call, d->name_text));
  const std::size_t row = static_cast<std::size_t>(d->size);
  if (high < low) return;
  program& p = program::current(call);
  const std::size_t bytes = static_cast<std::size_t>(high - low + 1) * row;
  // op_mpi_get_data's copy holds its values in `data` alone.
  if (d->array == nullptr) {
    std::memmove(out, d->data + static_cast<std::size_t>(low) * row, bytes);
    return;
  }
  // The read refreshes dat->data's host copy where it covers the same elements (all of this
  // rank's block over MPI, where the whole dat is gathered anyway); `out` may be that copy.
  if (p.mpi && p.mpi->partitioned()) {
    // op_fetch_data: this rank's declared block; op_fetch_data_idx: elements of the whole set.
    const std::vector<std::byte> all = p.mpi->gathered(*d);
    const std::size_t mine = p.mpi->block_start(*d->set) * row;
    if (!d->host_copy.empty()) std::memcpy(d->host_copy.data(), all.data() + mine, d->host_copy.size());
    std::memcpy(out,
                all.data() + (whole ? static_cast<std::size_t>(low) * row : mine + static_cast<std::size_t>(low) * row),
                bytes);
    return;
  }
  std::byte* kept = d->host_copy.data() + static_cast<std::size_t>(low) * row;
  std::memcpy(kept, user_values(*d) + static_cast<std::size_t>(low) * row, bytes);
  std::memmove(out, kept, bytes);
}

// op_decl_const's variable's name, from the text of its argument: `&gam` or `qinf`.
inline std::string constant_name(std::string_view spelled) {
  while (!spelled.empty() && (spelled.front() == '&' || spelled.front() == '(' || spelled.front() == ' ')) {
    spelled.remove_prefix(1);
  }
  while (!spelled.empty() && (spelled.back() == ')' || spelled.back() == ' ')) spelled.remove_suffix(1);
  return std::string(spelled);
}

// `data` holds `dim` values of `type`; `variable`: whether it is the application's variable the
// kernels read by `name`; `holds`: how many values it has, where that is known (0 where not).
template <class T>
void decl_const(int dim, const char* type, const T* data, std::string name, bool variable = false,
                std::size_t holds = 0) {
  program& p = program::current("op_decl_const");
  const std::string call = parloop::detail::format("op_decl_const '{}'", name);
  detail::check_kernel_name(name);
  if (dim < 1) throw argument_error(parloop::detail::format("{}: the dimension is {}", call, dim));
  if (data == nullptr) throw argument_error(parloop::detail::format("{}: the data is null", call));
  const scalar_type t = dat_scalar<T>(type, call);
  if (holds != 0 && static_cast<std::size_t>(dim) > holds) {
    throw argument_error(parloop::detail::format("{}: the dimension is {}, and the variable holds {} value{}", call,
                                                 dim, holds, holds == 1 ? "" : "s"));
  }
  constant c{name, t, dim, std::vector<std::byte>(static_cast<std::size_t>(dim) * scalar_bytes(t))};
  // Written only while a loop runs on the host, with the values the application declared: a
  // const variable holds them already and is never written.
  if (variable) c.variable = reinterpret_cast<std::byte*>(const_cast<T*>(data));
  std::memcpy(c.bytes.data(), data, c.bytes.size());
  if (is_floating(t)) {
    for (int k = 0; k < dim; ++k) {
      double v = 0;
      if (t == scalar_type::float64)
        std::memcpy(&v, c.bytes.data() + 8 * k, 8);
      else {
        float f = 0;
        std::memcpy(&f, c.bytes.data() + 4 * k, 4);
        v = f;
      }
      if (!std::isfinite(v)) {
        throw data_error(
            parloop::detail::format("{}: value {} is {}: a device kernel's constants are finite numbers", call, k, v));
      }
    }
  }
  // Declared again (OP2's way to change a constant): the new values.
  for (constant& old : p.constants) {
    if (old.name != c.name) continue;
    if (old.bytes != c.bytes || old.type != c.type || old.dim != c.dim) {
      old = std::move(c);
      ++p.constants_version;
    }
    return;
  }
  p.constants.push_back(std::move(c));
  ++p.constants_version;
}

// op_decl_const(dim, type, data) as its macro calls it: `spelled` is the argument's text and
// `pointee` sizeof(*(data)). `&gam` is the variable gam itself, of `pointee` bytes; an array
// `qinf` is the variable, of its extent; any other expression is only an address.
template <class A>
void decl_const_spelled(const char* spelled, int dim, const char* type, A&& data, std::size_t pointee) {
  const std::string name = constant_name(spelled);
  const std::string_view text(spelled);
  const bool plain_name = parloop::detail::is_identifier(name);
  using value = std::remove_cvref_t<A>;
  if constexpr (std::is_array_v<value>) {
    decl_const(dim, type, &data[0], name, plain_name, std::extent_v<value>);
  } else {
    const bool address_of_name = plain_name && text.find('&') != std::string_view::npos;
    using scalar = std::remove_pointer_t<value>;
    decl_const(dim, type, data, name, address_of_name, address_of_name ? pointee / sizeof(scalar) : 0);
  }
}

}  // namespace parloop::op2
