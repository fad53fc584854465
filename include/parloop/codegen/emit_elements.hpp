// SPDX-License-Identifier: MIT
// The elements each work-item runs, as the launch strategy assigns them: one, a stride apart, a
// chunk, or a vector's width of them whose direct arguments move as vectors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/codegen/emitter.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

// Runs element() once per element pl_e of this work-item, as the strategy assigns them: the
// range's positions are elements, or, in a coloured loop, positions pl_p in pl_order, which
// holds the colour's elements. Both are 64-bit, so that no step overflows near the end of the
// int range.
inline void emitter::elements(source_writer& w) {
  const std::string_view index = index_type();
  const std::string_view at = colored_ ? "pl_p" : "pl_e";
  std::visit(
      [&](const auto& v) {
        using S = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<S, vectors_across_workgroups>) {
          vector_elements(w, v.width);
          return;
        } else if constexpr (std::is_same_v<S, split_n_across_workgroups>) {
          if (cells_) {
            const ir::extrusion& x = k_.extrusion;
            w.line("const {} pl_cell = ({})pl_start * {} + pl_item;", index, index, x.count);
            w.open("if (pl_cell < ({})pl_end * {})", index, x.count);
            cell_element(w);
            return;
          }
          w.line("const {} {} = ({})pl_start + pl_item;", index, at, index);
          w.open("if ({} < pl_end)", at);
        } else if constexpr (std::is_same_v<S, grid_stride>) {
          if (cells_) {
            const ir::extrusion& x = k_.extrusion;
            w.open("for ({} pl_cell = ({})pl_start * {} + pl_item; pl_cell < ({})pl_end * {}; pl_cell += {})", index,
                   index, x.count, index, x.count, d_.work_items());
            cell_element(w);
            return;
          }
          w.open("for ({} {} = ({})pl_start + pl_item; {} < pl_end; {} += {})", index, at, index, at, at,
                 d_.work_items());
        } else {
          w.line("const {} pl_first = ({})pl_start + ({})pl_item * {};", index, index, index, v.per_item);
          w.line("const {} pl_last = pl_first + {} < pl_end ? pl_first + {} : pl_end;", index, v.per_item, v.per_item);
          w.open("for ({} {} = pl_first; {} < pl_last; ++{})", index, at, at, at);
        }
        if (colored_) w.line("const {} pl_e = pl_order[pl_p];", index);
        element(w, {}, 0);
        w.close();
      },
      strategy_);
}

// Cell pl_cell of the range's columns (runs_cells), the layer fastest: its column pl_e and
// layer pl_l, then the element; closes the block the caller opened.
inline void emitter::cell_element(source_writer& w) {
  const ir::extrusion& x = k_.extrusion;
  w.line("const {} pl_e = pl_cell / {};", index_type(), x.count);
  w.line("const int pl_l = {} + (int)(pl_cell - pl_e * {});", x.first, x.count);
  element(w, {}, 0);
  w.close();
}

// vectors_across_workgroups: the work-item's `width` elements from pl_base, a multiple of
// width. Where all of them are in the range, each direct argument's values for them, which lie
// side by side, are loaded into the private pl_vec<N> as vectors (unless the body writes them
// before reading them), each element runs on its part, and they are stored back as vectors
// (unless READ). Where the range cuts them, the ones inside it run one at a time in place.
// The two paths have their own copies of the body: with one shared copy, the compiler merged
// the stores of both paths into the scalar ones.
inline void emitter::vector_elements(source_writer& w, int width) {
  const std::string_view index = index_type();
  // Vectors are indexed from the buffer's start (by pl_slice), not reached through
  // pl_base's pointer: where the compiler can see that pl_base is even, it no longer trusts
  // the vector's alignment and stores (though not loads) one value at a time.
  w.line("const {} pl_slice = ({})pl_start / {} + pl_item;", index, index, width);
  w.line("const {} pl_base = pl_slice * {};", index, width);
  std::vector<bool> in_vectors(k_.params.size(), false);
  std::vector<std::size_t> loaded, stored;
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::param& p = k_.params[i];
    if (!moves_as_vectors(k_, p)) continue;
    in_vectors[i] = true;
    if (p.mode != access::write || !ir::written_before_read(k_, static_cast<ir::id>(i))) loaded.push_back(i);
    if (p.mode != access::read) stored.push_back(i);
  }
  // Only arguments reached through pl_e need it, and an unused variable is a warning.
  const auto uses_element = [&](const std::vector<bool>& vectored) {
    bool uses = false;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      uses = uses || ((i >= vectored.size() || !vectored[i]) && k_.params[i].kind != arg_kind::global);
    }
    return uses;
  };
  // Each element's copy of the body; where the range cuts the work-item's elements, each
  // guarded by its own test (a loop over them takes NVRTC markedly longer).
  const auto each_element = [&](const std::vector<bool>& vectored, bool guarded) {
    for (int j = 0; j < width; ++j) {
      if (guarded)
        w.open("if ({})", in_range(j));
      else
        w.open("");
      if (uses_element(vectored)) w.line("const {} pl_e = pl_base + {};", index, j);
      element(w, vectored, j);
      w.close();
    }
  };
  w.open("if (pl_base >= pl_start && pl_base + {} <= pl_end)", width);
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    if (in_vectors[i]) w.line("{} pl_vec{}[{}];", type(k_.params[i].type), i, width * k_.params[i].dim);
  }
  move_vectors(w, loaded, width, true);
  each_element(in_vectors, false);
  move_vectors(w, stored, width, false);
  w.reopen("else");
  each_element({}, true);
  w.close();
}

// Whether the work-item's j-th element is in the range.
inline std::string emitter::in_range(int j) {
  const std::string e = j == 0 ? "pl_base" : parloop::detail::format("pl_base + {}", j);
  return parloop::detail::format("{} >= pl_start && {} < pl_end", e, e);
}

// Loads (or stores) the pl_vec arrays of `args` as vectors of up to 16 bytes: the work-item's
// slice of width * dim values is a whole number of them, and buffers are aligned.
inline void emitter::move_vectors(source_writer& w, const std::vector<std::size_t>& args, int width, bool load) {
  static constexpr char lane_names[] = "xyzw";
  for (const std::size_t i : args) {
    const ir::param& p = k_.params[i];
    const int lanes = std::min(width, 16 / static_cast<int>(scalar_bytes(p.type)));
    const std::string vector = d_.vector_type(p.type, lanes);
    const std::string data = parloop::detail::format("data{}", p.data);
    // By elements, the slice's width * dim values lie together; by components, each
    // component's width values do, a stride apart (a whole number of vectors: soa_alignment).
    const int components = soa(p) ? p.dim : 1;
    const int vectors = width * p.dim / lanes / components;
    for (int k = 0; k < components; ++k) {
      for (int m = 0; m < vectors; ++m) {
        std::string at = vectors == 1 ? "pl_slice" : parloop::detail::format("pl_slice * {}", vectors);
        if (m > 0) at += parloop::detail::format(" + {}", m);
        if (k > 0) at += parloop::detail::format(" + ({})(data{}_stride / {}) * {}", index_type(), p.data, lanes, k);
        std::string lanes_moved;
        for (int c = 0; c < lanes; ++c) {
          const int mine = soa(p) ? (m * lanes + c) * p.dim + k : m * lanes + c;
          lanes_moved += load ? parloop::detail::format(" pl_vec{}[{}] = pl_v.{};", i, mine, lane_names[c])
                              : parloop::detail::format(" pl_v.{} = pl_vec{}[{}];", lane_names[c], i, mine);
        }
        if (load)
          w.line("{{ const {} pl_v = {};{} }}", vector, d_.load_vector(p.type, lanes, data, at), lanes_moved);
        else
          w.line("{{ {} pl_v;{} {} }}", vector, lanes_moved, d_.store_vector(p.type, lanes, "pl_v", data, at));
      }
    }
  }
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
