// SPDX-License-Identifier: MIT
// OP2's op_mpi_get_data: a copy of a dat's values -- this rank's declared block, in the order it
// was declared, wherever op_partition moved the elements -- in a dat of its own, on a set of its
// own, all in malloc's storage, because OP2's callers release them with free(): temp->data,
// temp->set, then temp. The copies own nothing of parloop's, so no destructor is missed.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#include "parloop/op2/declare.hpp"
#include "parloop/op2/handles.hpp"

namespace parloop::op2 {

inline op_dat_core* mpi_get_data(op_dat_core* d) {
  check_dat(d, "op_mpi_get_data");
  const int elements = d->set->size;
  const std::size_t bytes = static_cast<std::size_t>(elements) * static_cast<std::size_t>(d->size);
  // At least a byte each, so that free() is handed what malloc gave even for an empty block.
  char* values = static_cast<char*>(std::malloc(bytes > 0 ? bytes : 1));
  void* set_storage = std::malloc(sizeof(op_set_core));
  void* dat_storage = std::malloc(sizeof(op_dat_core));
  const auto release = [&] {
    std::free(values);
    std::free(set_storage);
    std::free(dat_storage);
  };
  if (values == nullptr || set_storage == nullptr || dat_storage == nullptr) {
    release();
    throw std::bad_alloc();
  }
  try {
    if (elements > 0) fetch_data(d, values, 0, elements - 1, "op_mpi_get_data");
  } catch (...) {
    release();
    throw;
  }
  op_set_core* set = new (set_storage) op_set_core(*d->set, elements);
  return new (dat_storage) op_dat_core(*d, set, values);
}

}  // namespace parloop::op2
