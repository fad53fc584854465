// SPDX-License-Identifier: MIT
// A structural hash of the IR: equal kernels (operator==) hash equally.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "parloop/config.hpp"
#include "parloop/ir/kernel.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::ir {

namespace detail {

class hasher {
 public:
  hasher() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~hasher() { XXH3_freeState(state_); }
  hasher(const hasher&) = delete;
  hasher& operator=(const hasher&) = delete;

  void add(std::uint64_t v) { XXH3_64bits_update(state_, &v, sizeof v); }
  // Length first, so that adjacent strings cannot trade characters.
  void add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    XXH3_64bits_update(state_, s.data(), s.size());
  }
  std::uint64_t digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

}  // namespace detail

inline std::uint64_t hash(const kernel& k) {
  detail::hasher h;
  const auto u = [](auto v) { return static_cast<std::uint64_t>(v); };
  h.add(k.name);
  h.add(k.params.size());
  for (const param& p : k.params) {
    for (const std::uint64_t v :
         {u(p.type), u(p.dim), u(p.mode), u(p.kind), u(p.slot), u(p.arity), u(p.data), u(p.map), u(p.layered)}) {
      h.add(v);
    }
  }
  h.add(k.exprs.size());
  for (const expr& e : k.exprs) {
    for (const std::uint64_t v :
         {u(e.kind), u(e.type), u(e.o), u(e.a), u(e.b), u(e.c), u(e.ival), std::bit_cast<std::uint64_t>(e.fval)}) {
      h.add(v);
    }
  }
  h.add(k.locals.size());
  for (const local& l : k.locals) {
    h.add(l.name);
    h.add(u(l.type));
  }
  h.add(k.stmts.size());
  for (const stmt& s : k.stmts) {
    for (const std::uint64_t v : {u(s.kind), u(s.o), u(s.target), u(s.value), u(s.hi), u(s.block), u(s.else_block)}) {
      h.add(v);
    }
  }
  h.add(k.blocks.size());
  for (const block& b : k.blocks) {
    h.add(b.stmts.size());
    for (const id s : b.stmts) h.add(s);
  }
  h.add(k.raw_source);
  h.add(k.raw_params.size());
  for (const raw_param& r : k.raw_params) {
    for (const std::uint64_t v : {u(r.type), u(r.is_const), u(r.per_slot)}) h.add(v);
  }
  const extrusion& x = k.extrusion;
  for (const std::uint64_t v : {u(x.layers), u(x.first), u(x.count), u(x.facets)}) h.add(v);
  return h.digest();
}

}  // namespace parloop::ir

PARLOOP_COLD_END
