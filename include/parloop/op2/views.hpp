// SPDX-License-Identifier: MIT
// An OP2 loop's arguments as parloop's type-erased views (core/arg.hpp), each checked against
// the kernel parameter in its place, whose C++ type says how the kernel takes it.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "parloop/core/access.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/dat.hpp"
#include "parloop/core/distribution.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/source_kernel.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/args.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/program.hpp"

namespace parloop::op2 {

// The scalar type of a kernel parameter's values.
template <class V>
constexpr scalar_type kernel_scalar() {
  using U = std::remove_cv_t<V>;
  static_assert(
      std::is_same_v<U, double> || std::is_same_v<U, float> || std::is_same_v<U, int> || std::is_same_v<U, long long>,
      "parloop's OP2 API: an OP2 kernel's parameter points to double, float, int or long long values");
  return scalar_of<U>();
}

// How an OP2 kernel takes parameter P: T* (const or not), or T** for a vector argument.
template <class P>
constexpr source_param raw_param_of() {
  static_assert(std::is_pointer_v<P>, "parloop's OP2 API: each parameter of an OP2 kernel is a pointer");
  using Pointee = std::remove_pointer_t<P>;
  if constexpr (std::is_pointer_v<Pointee>) {
    using Value = std::remove_pointer_t<Pointee>;
    return {kernel_scalar<Value>(), std::is_const_v<Value>, true};
  } else {
    return {kernel_scalar<Pointee>(), std::is_const_v<Pointee>, false};
  }
}

// A global's or an index's type, known to C++, against the kernel's parameter.
template <class P, class T>
constexpr bool typed_fits(const typed_arg<T>*) {
  using Value = std::remove_cv_t<std::remove_pointer_t<P>>;
  static_assert(std::is_same_v<Value, std::remove_cv_t<T>> || std::is_same_v<std::remove_cv_t<T>, char>,
                "parloop's OP2 API: an op_arg_gbl's or op_arg_idx's variable is of another type than the kernel's "
                "parameter in its place points to");
  return true;
}
template <class P>
constexpr bool typed_fits(const op_arg*) {
  return true;
}

inline access access_of(int acc) {
  constexpr access modes[] = {access::read, access::write, access::rw, access::inc, access::min, access::max};
  return modes[acc];
}

// Each element's own number in the user's numbering: what op_arg_idx passes.
inline detail::array_state<int>& numbers_of(op_set_core& s) {
  if (!s.numbers) {
    // On a distributed set, each local element's global number (the declared blocks' order).
    const detail::set_distribution* d = s.set->distribution();
    std::vector<int> own(static_cast<std::size_t>(s.set->size()));
    for (std::size_t i = 0; i < own.size(); ++i) own[i] = d != nullptr ? d->global[i] : static_cast<int>(i);
    s.numbers = detail::make_dat_state(*s.set, own.data(), s.name_text + "_numbers", 1);
  }
  return *s.numbers;
}

// What the kernel's parameter i is given, checked against how it declares it; a global's values
// are `global`'s.
inline detail::arg_view view_of(op_set_core& set, const op_arg& a, const source_param& param, int i,
                                detail::function_ref<std::string()> loop, detail::any_array* global) {
  const auto what = [&] { return parloop::detail::format("{}: argument {}", loop(), i); };
  if (a.scalar != param.type) {
    throw data_error(parloop::detail::format("{} holds {}, and the kernel's parameter {} points to {}", what(),
                                             type_name(a.scalar), i, type_name(param.type)));
  }
  const bool vector = a.argtype == dat_arg && a.opt == 1 && a.idx < -1;
  if (vector != param.per_slot) {
    throw data_error(parloop::detail::format("{} is {}, and the kernel's parameter {} is {}", what(),
                                             vector ? "a vector of a map's entries" : "one element's values", i,
                                             param.per_slot ? "a pointer per map entry (T**)" : "one pointer (T*)"));
  }
  if (param.is_const && a.acc != read_access && a.argtype != idx_arg) {
    throw data_error(
        parloop::detail::format("{} is {}, and the kernel's parameter {} is const", what(), access_name(a.acc), i));
  }
  if (a.argtype == idx_arg) {
    detail::array_state<int>& numbers = numbers_of(a.map == nullptr ? set : *a.map->to);
    detail::map_state* m = a.map == nullptr ? nullptr : &a.map->parloop_map->state();
    return {&numbers.array,     &numbers,           m, access::read, m ? arg_kind::indirect : arg_kind::direct,
            std::max(a.idx, 0), scalar_type::int32, 1};
  }
  if (a.argtype == gbl_arg || a.opt == 0) {
    // An optional argument left out gets zeros the kernel must not use, as OP2's gets no values.
    detail::any_array* g = a.opt == 0 ? global_of(a.scalar, std::max(a.dim, 1), -1) : global;
    return {g->values, g->owner.get(),    nullptr, a.opt == 0 ? access::read : access_of(a.acc), arg_kind::global, 0,
            a.scalar,  std::max(a.dim, 1)};
  }
  if (a.map == nullptr && a.dat->set != &set) {
    throw argument_error(parloop::detail::format("{}: dat '{}' is on set '{}', and the loop is over '{}'", what(),
                                                 a.dat->name_text, a.dat->set->name_text, set.name_text));
  }
  if (a.map != nullptr && a.map->from != &set) {
    throw argument_error(parloop::detail::format("{}: map '{}' is from set '{}', and the loop is over '{}'", what(),
                                                 a.map->name_text, a.map->from->name_text, set.name_text));
  }
  const arg_kind kind = a.map == nullptr ? arg_kind::direct : a.idx < -1 ? arg_kind::whole_map : arg_kind::indirect;
  return {a.dat->array,
          a.dat->state.get(),
          a.map ? &a.map->parloop_map->state() : nullptr,
          access_of(a.acc),
          kind,
          std::max(a.idx, 0),
          a.dat->scalar,
          a.dat->dim};
}

}  // namespace parloop::op2
