// SPDX-License-Identifier: MIT
// kernel_record: what a backend's build produces and its load takes -- the binary, its entry
// point, the grid-size functor that launches it, its block size and its buffer layout. One
// plain type for every backend, with its cereal record: the disk cache stores exactly this.
// Loading validates every field, so a damaged record is refused, never evaluated or launched.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cereal/cereal.hpp>

#include "parloop/config.hpp"
#include "parloop/cache/bounded.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/format.hpp"
#include "parloop/ir/grid.hpp"
#include "parloop/ir/layout.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

enum class binary_format : std::uint8_t {
  opencl_program,  // CL_PROGRAM_BINARIES of one device
  cubin,           // machine code for one GPU architecture
  ptx,             // assembly the CUDA driver compiles when loading it
  launch_choice,   // not a binary: the launch autotuning chose for a loop (exec/device/autotune.hpp,
                   // backend/threads/tuning.hpp)
};

struct kernel_record {
  backend_kind backend = backend_kind::host;
  binary_format format = binary_format::opencl_program;
  std::string entry;
  std::vector<unsigned char> binary;
  ir::grid_size_functor grid;
  int block = 0;
  std::vector<ir::kernel_buffer> layout;

  friend bool operator==(const kernel_record&, const kernel_record&) = default;
};

}  // namespace parloop::cache

namespace parloop::ir {

template <class Archive>
void save(Archive& archive, const grid_node& n) {
  archive(static_cast<std::uint8_t>(n.op), n.value);
}
template <class Archive>
void load(Archive& archive, grid_node& n) {
  std::uint8_t op = 0;
  archive(op, n.value);
  n.op = static_cast<grid_op>(op);
}

template <class Archive>
void save(Archive& archive, const grid_size_functor& f) {
  archive(cache::bounded(f.program()));
}
// The functor's constructor checks the program: a damaged one throws here.
template <class Archive>
void load(Archive& archive, grid_size_functor& f) {
  std::vector<grid_node> program;
  archive(cache::bounded(program));
  f = grid_size_functor(std::move(program));
}

template <class Archive>
void save(Archive& archive, const kernel_buffer& b) {
  archive(static_cast<std::uint8_t>(b.role), b.index, b.position, static_cast<std::uint8_t>(b.type), b.dim,
          static_cast<std::uint8_t>(b.is_const));
}
template <class Archive>
void load(Archive& archive, kernel_buffer& b) {
  std::uint8_t role = 0, type = 0, is_const = 0;
  archive(role, b.index, b.position, type, b.dim, is_const);
  if (role > static_cast<std::uint8_t>(buffer_role::stride) || type > static_cast<std::uint8_t>(scalar_type::float64) ||
      is_const > 1 || b.index < 0 || b.dim < 1 ||
      b.position < (launch_provided(static_cast<buffer_role>(role)) ? -1 : 0)) {
    throw cereal::Exception("kernel record: a damaged buffer layout");
  }
  b.role = static_cast<buffer_role>(role);
  b.is_const = is_const == 1;
  b.type = static_cast<scalar_type>(type);
}

}  // namespace parloop::ir

namespace parloop::cache {

template <class Archive>
void save(Archive& archive, const kernel_record& r) {
  archive(static_cast<int>(r.backend), static_cast<std::uint8_t>(r.format), bounded(r.entry), bounded(r.binary), r.grid,
          r.block, bounded(r.layout));
}
template <class Archive>
void load(Archive& archive, kernel_record& r) {
  int backend = 0;
  std::uint8_t format = 0;
  archive(backend, format, bounded(r.entry), bounded(r.binary), r.grid, r.block, bounded(r.layout));
  // The host keeps nothing; threads keeps the block sizes its autotuned loops chose.
  if (backend <= static_cast<int>(backend_kind::host) || backend > static_cast<int>(backend_kind::threads) ||
      format > static_cast<std::uint8_t>(binary_format::launch_choice) ||
      (backend == static_cast<int>(backend_kind::threads) &&
       format != static_cast<std::uint8_t>(binary_format::launch_choice)) ||
      r.entry.empty() || r.binary.empty() || r.block < 1 || r.block > 1024) {
    throw cereal::Exception(
        parloop::detail::format("kernel record '{}': damaged (backend {}, format {}, {} bytes, block {})", r.entry,
                                backend, format, r.binary.size(), r.block));
  }
  r.backend = static_cast<backend_kind>(backend);
  r.format = static_cast<binary_format>(format);
}

}  // namespace parloop::cache

PARLOOP_COLD_END
