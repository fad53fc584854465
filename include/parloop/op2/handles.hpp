// SPDX-License-Identifier: MIT
// What OP2's handles (op_set, op_map, op_dat) point to: the fields OP2's applications read, and
// the parloop set, map or dat behind each. They live in the program (op2/program.hpp) from their
// op_decl_ call to op_exit, as OP2's do.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parloop/core/array_state.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/core/set.hpp"

namespace parloop::op2 {

struct op_set_core {
  op_set_core(int number, Set s)
      : index(number),
        size(s.size()),
        core_size(size),
        set(std::make_shared<Set>(std::move(s))),
        name_text(set->name()) {
    name = name_text.c_str();
  }
  // A copy of `of`'s OP2 fields with `elements` elements, owning nothing: made in malloc's storage
  // for op_mpi_get_data, whose caller releases it with free() and runs no destructor. Its parloop
  // set is `of`'s, not shared.
  op_set_core(const op_set_core& of, int elements)
      : index(of.index),
        size(elements),
        name(of.name),
        core_size(elements),
        set(std::shared_ptr<Set>(), of.set.get()) {}
  // OP2's fields. Over MPI, once op_partition has run, this rank's share: `core_size` elements
  // computed without halo data, `exec_size` halo elements its loops run too (they write to what
  // it owns), `nonexec_size` halo elements only read. `size` stays the block declared.
  int index;
  int size;
  const char* name;
  int core_size;
  int exec_size = 0;
  int nonexec_size = 0;
  // parloop's: shared by the handle's copies for op_mpi_get_data, which own none of it.
  std::shared_ptr<Set> set;
  std::string name_text;
  // Each element's own number in the user's numbering, for op_arg_idx: made at its first use.
  std::shared_ptr<detail::array_state<int>> numbers;
};

struct op_map_core {
  op_map_core(int number, op_set_core* source, op_set_core* target, int arity, std::vector<int> given,
              std::optional<Map> m, std::string called)
      : index(number),
        from(source),
        to(target),
        dim(arity),
        values(std::move(given)),
        parloop_map(std::move(m)),
        name_text(std::move(called)) {
    map = values.data();
    name = name_text.c_str();
  }
  // OP2's fields: `map` holds the values as declared.
  int index;
  op_set_core* from;
  op_set_core* to;
  int dim;
  int* map;
  const char* name;
  // parloop's. Over MPI, the map exists once op_partition has distributed the mesh (its values
  // are global numbers until then).
  std::vector<int> values;
  std::optional<Map> parloop_map;
  std::string name_text;
};

struct op_dat_core {
  op_dat_core(int number, op_set_core* on, int components, scalar_type t, std::string type_name,
              std::shared_ptr<detail::array_base> owner, detail::mirrored_array& values, bool temp)
      : index(number),
        set(on),
        dim(components),
        size(components * static_cast<int>(scalar_bytes(t))),
        scalar(t),
        temporary(temp),
        state(std::move(owner)),
        array(&values),
        name_text(state->name),
        type_text(std::move(type_name)) {
    name = name_text.c_str();
    type = type_text.c_str();
  }
  // Starts `data`'s host copy: the declared values, or zeros where there are none.
  void keep_host_copy(const std::byte* declared) {
    host_copy.assign(static_cast<std::size_t>(set->size) * static_cast<std::size_t>(size), std::byte{});
    if (declared != nullptr && !host_copy.empty()) std::memcpy(host_copy.data(), declared, host_copy.size());
    data = reinterpret_cast<char*>(host_copy.data());
  }
  // A copy of `of`'s OP2 fields on `on`, holding `values`, owning nothing: made in malloc's
  // storage for op_mpi_get_data, whose caller releases it with free() and runs no destructor.
  op_dat_core(const op_dat_core& of, op_set_core* on, char* values)
      : index(of.index),
        set(on),
        dim(of.dim),
        size(of.size),
        data(values),
        name(of.name),
        type(of.type),
        scalar(of.scalar),
        temporary(true),
        array(nullptr) {}
  // OP2's fields. `data` is the host copy, as on OP2's device backends: this rank's declared
  // block in the application's numbering, as declared and then as each op_fetch_data of the dat
  // last read it (loops run where parloop keeps the values, so it is not live between fetches).
  int index;
  op_set_core* set;
  int dim;
  int size;  // bytes per element
  char* data = nullptr;
  const char* name;
  const char* type;
  // parloop's.
  scalar_type scalar;
  bool temporary;
  std::shared_ptr<detail::array_base> state;
  detail::mirrored_array* array;
  std::string name_text, type_text;
  std::vector<std::byte> host_copy;
};

}  // namespace parloop::op2
