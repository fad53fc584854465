// SPDX-License-Identifier: MIT
// The state of an OP2 application, from op_init to op_exit: the runtime its loops run on (the
// backend PARLOOP_BACKEND names, else the best), its sets, maps and dats, the constants it
// declared, the globals its loops reduce into, and each kernel's compiled code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "parloop/core/any_array.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/handles.hpp"

namespace parloop::op2 {

// A constant of op_decl_const: its name (as the call spelled the variable) and values.
struct constant {
  std::string name;
  scalar_type type;
  int dim;
  std::vector<std::byte> bytes;
  // The application's variable, where op_decl_const named one (`&gam`, an array `qinf`): what a
  // kernel function on the host reads, which holds the declared values while it runs
  // (op2/constant_values.hpp). Null where the call gave only an address.
  std::byte* variable = nullptr;
  bool told_changed = false;  // the variable was found changed since its declaration, and said so
};

// A kernel function's device code: the source found by OP2's convention (with the constants it
// names), and the cache of what it compiled to. Made at its first loop on a device.
struct kernel_record {
  std::string name;
  // As found, its #include lines resolved; empty where the host found none; unset until looked for.
  std::optional<std::string> header;
  // The application's user_types.h, resolved; empty where it has none.
  std::string user_types;
  std::string source;
  std::uint64_t constants_version = 0;
  std::unique_ptr<detail::kernel_cache> cache;
};

class program;

// An OP2 application over MPI ranks (op_lib_mpi.h installs it: op2/distributed.hpp): each rank
// declares its block of every set, with maps in global numbers, and op_partition distributes
// them. Without it, the application runs in one process.
class distribution {
 public:
  virtual ~distribution() = default;
  // At op_init, before the runtime opens: MPI started where the application has not; rank, ranks.
  virtual std::pair<int, int> start() = 0;
  virtual void declare_set(const op_set_core& s) = 0;
  virtual void declare_map(const op_map_core& m) = 0;
  virtual void declare_dat(const op_dat_core& d, const std::byte* values) = 0;
  // op_partition: distributes what was declared and puts each handle on its share.
  virtual void partition(program& p, const char* lib, const char* routine, op_set_core* prime_set,
                         op_map_core* prime_map, op_dat_core* coords) = 0;
  virtual bool partitioned() const = 0;
  // The dat's values in global numbering, on every rank; this rank's declared block of them.
  virtual std::vector<std::byte> gathered(op_dat_core& d) = 0;
  virtual std::size_t block_start(const op_set_core& s) const = 0;
  // Each rank's bytes, in rank order, on rank 0 (empty elsewhere): declared blocks put together.
  virtual std::vector<std::byte> blocks_on_root(std::span<const std::byte> mine) = 0;
  virtual int global_size(const op_set_core& s) const = 0;
  virtual void barrier() = 0;
  // At op_exit: MPI finished where start() began it.
  virtual void finish() = 0;
};

// What makes the distribution, where op_lib_mpi.h was included.
inline std::unique_ptr<distribution> (*&distribution_maker())() {
  static std::unique_ptr<distribution> (*made)() = nullptr;
  return made;
}

class program {
 public:
  program(Runtime rt, int diagnostics) : runtime(std::move(rt)), diags(diagnostics) {}

  // The program op_init made; a clear error before op_init or after op_exit.
  static program& current(std::string_view call) {
    if (!slot()) {
      throw argument_error(parloop::detail::format("{}: OP2's API is used before op_init (or after op_exit)", call));
    }
    return *slot();
  }
  static std::unique_ptr<program>& slot() {
    static std::unique_ptr<program> made;
    return made;
  }

  Runtime runtime;
  int diags;
  std::vector<std::unique_ptr<op_set_core>> sets;
  std::vector<std::unique_ptr<op_map_core>> maps;
  std::vector<std::unique_ptr<op_dat_core>> dats;
  std::vector<constant> constants;
  // Counts the changes of `constants`: a kernel's source is made again after one.
  std::uint64_t constants_version = 1;
  std::map<std::string, kernel_record> kernels;  // by the calling file and kernel's name
  // The same by the call's own strings (op_par_loop's macro passes literals): found without
  // making a string.
  std::map<std::pair<const char*, const char*>, kernel_record*> sites;
  // The storage of a loop's global arguments, by type, dimension and place among the loop's
  // globals of that type and dimension: the user's variable is copied in before the loop and
  // out after it, so a loop in a time step allocates nothing, and variables at ever new
  // addresses (on the stack, on the heap) hold nothing past their loop.
  std::map<std::tuple<scalar_type, int, int>, detail::any_array> globals;
  // This process's rank among the application's, and how many there are; over MPI, how.
  int rank = 0;
  int ranks = 1;
  std::unique_ptr<distribution> mpi;
  // Whether the mesh was renumbered for locality, at the first loop (op2/loop.hpp).
  bool ordered = false;
};

// A compile error for any arguments: what OP2's calls that parloop leaves out instantiate.
template <class... A>
inline constexpr bool never = false;
// What such a call returns: anything the program takes from it, so that the compiler's one
// error is the call's own message, not a conversion's.
struct refused_result {
  template <class T>
  operator T() const {
    return T{};
  }
};

inline void init(int diags) {
  if (program::slot()) throw argument_error("op_init: called twice (op_exit ends the first)");
  std::unique_ptr<distribution> mpi;
  std::pair<int, int> place{0, 1};
  if (distribution_maker() != nullptr) {
    mpi = distribution_maker()();
    place = mpi->start();
  }
  // Over MPI the runtime opens once MPI has started: each rank takes the device of its local rank.
  program::slot() = std::make_unique<program>(Runtime::open(), diags);
  program::slot()->rank = place.first;
  program::slot()->ranks = place.second;
  program::slot()->mpi = std::move(mpi);
}

// Frees everything the application declared, as OP2's op_exit does; over MPI, then finishes it.
inline void exit_program() {
  std::unique_ptr<program>& p = program::slot();
  if (!p) return;
  std::unique_ptr<distribution> mpi = std::move(p->mpi);
  p.reset();
  if (mpi) mpi->finish();
}

inline int global_size(const op_set_core* s) {
  if (s == nullptr) throw argument_error("op_get_size: the set is null");
  const program& p = program::current("op_get_size");
  return p.mpi ? p.mpi->global_size(*s) : static_cast<int>(s->set->global_size());
}

// Whether this process prints: one of several ranks does.
inline bool is_root() {
  const std::unique_ptr<program>& p = program::slot();
  return !p || p->rank == 0;
}

}  // namespace parloop::op2
