// SPDX-License-Identifier: MIT
// An OP2 loop on the host and threads backends: the kernel function itself, called for each
// element with a pointer per argument -- a dat's row (through its map's entry), a pointer per map
// entry for a vector argument, a global's values or a block's partial of them -- as OP2's
// sequential library calls it.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "parloop/backend/host/launch.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/scalar_type.hpp"
#include "parloop/op2/args.hpp"

namespace parloop::op2 {

// Where each argument's pointer comes from as the host runs elements.
struct host_arg {
  std::byte* base = nullptr;
  std::size_t row = 0;  // bytes per element
  const index_t* map = nullptr;
  int arity = 0;
  int slot = 0;
  bool vector = false;
  bool fixed = false;     // the same pointer for every element: a global's
  std::size_t slots = 0;  // a vector's first entry in the run's pointers per slot
};

// The partials of a block: each modified global's values, 8-byte aligned.
inline std::size_t partial_size(const detail::arg_view& v) {
  if (v.kind != arg_kind::global || v.mode == access::read) return 0;
  return (static_cast<std::size_t>(v.dim) * scalar_bytes(v.type) + 7) / 8 * 8;
}

inline void combine_partial(std::byte* home, const std::byte* part, const detail::arg_view& v) {
  with_data_scalar(v.type, "op_arg_gbl", [&]<class T>(T) {
    detail::combine_partial_values(reinterpret_cast<T*>(home), reinterpret_cast<const T*>(part), v.dim, v.mode);
  });
}

// The loop's arguments as the host runs them: `views` holds the views of those that have one
// (view_at[i], or -1 for op_arg_info, which hands the kernel the user's variable).
struct host_loop {
  std::span<const op_arg* const> args;
  std::span<const int> view_at;
  std::span<const detail::arg_view> views;
  detail::function_ref<void(void* const*)> call;

  std::size_t partial_bytes() const {
    std::size_t n = 0;
    for (const detail::arg_view& v : views) n += partial_size(v);
    return n;
  }

  // The host's copies current, once per loop.
  void prepare() const {
    for (const detail::arg_view& v : views) {
      if (is_modified(v.mode))
        v.data->host_written(v.owner->device());
      else
        v.data->ensure_host(v.owner->device());
    }
  }

  // Runs the elements of r in order; the globals it reduces into go to `partials` where given.
  void run(range r, std::byte* partials) const {
    std::array<host_arg, detail::max_loop_args> bound;
    std::size_t slot_count = 0, partial_at = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
      host_arg& b = bound[i];
      if (view_at[i] < 0) {
        b.base = reinterpret_cast<std::byte*>(args[i]->data);
        b.fixed = true;
        continue;
      }
      const detail::arg_view& v = views[static_cast<std::size_t>(view_at[i])];
      b.base = v.data->host_bytes();
      b.row = static_cast<std::size_t>(v.dim) * scalar_bytes(v.type);
      if (v.kind == arg_kind::global) {
        b.fixed = true;
        if (partials != nullptr && partial_size(v) > 0) {
          b.base = partials + partial_at;
          partial_at += partial_size(v);
        }
        continue;
      }
      if (v.map != nullptr) {
        b.map = v.map->values.data();
        b.arity = v.map->arity;
        b.slot = v.slot;
      }
      if (v.kind == arg_kind::whole_map) {
        b.vector = true;
        b.slots = slot_count;
        slot_count += static_cast<std::size_t>(b.arity);
      }
    }
    std::vector<void*> slots(slot_count);
    std::array<void*, detail::max_loop_args> pointers{};
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (bound[i].fixed) pointers[i] = bound[i].base;
      if (bound[i].vector) pointers[i] = slots.data() + bound[i].slots;
    }
    for (index_t e = r.start; e < r.end; ++e) {
      for (std::size_t i = 0; i < args.size(); ++i) {
        const host_arg& b = bound[i];
        if (b.fixed) continue;
        const std::ptrdiff_t row_of = static_cast<std::ptrdiff_t>(e) * b.arity;
        if (b.vector) {
          for (int j = 0; j < b.arity; ++j) {
            slots[b.slots + static_cast<std::size_t>(j)] = b.base + static_cast<std::size_t>(b.map[row_of + j]) * b.row;
          }
        } else {
          const index_t at = b.map == nullptr ? e : b.map[row_of + b.slot];
          pointers[i] = b.base + static_cast<std::size_t>(at) * b.row;
        }
      }
      call(pointers.data());
    }
  }

  // A block's partials start where combining them changes nothing: 0 for INC, the global's
  // values for MIN and MAX.
  void start(std::byte* partials) const {
    for (const detail::arg_view& v : views) {
      const std::size_t n = partial_size(v);
      if (n == 0) continue;
      if (v.mode == access::inc)
        std::memset(partials, 0, n);
      else
        std::memcpy(partials, v.data->host_bytes(), static_cast<std::size_t>(v.dim) * scalar_bytes(v.type));
      partials += n;
    }
  }

  void combine(const std::byte* partials) const {
    for (const detail::arg_view& v : views) {
      const std::size_t n = partial_size(v);
      if (n == 0) continue;
      combine_partial(v.data->host_bytes(), partials, v);
      partials += n;
    }
  }
};

}  // namespace parloop::op2
