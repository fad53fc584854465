// SPDX-License-Identifier: MIT
// Kernel locals and data-dependent control flow: pl::let, pl::select, pl::if_, pl::for_, pl::cast.
#pragma once

#include <string_view>
#include <type_traits>
#include <utility>

#include "parloop/dsl/expr.hpp"
#include "parloop/dsl/nodes.hpp"
#include "parloop/dsl/recorder.hpp"
#include "parloop/dsl/var.hpp"

namespace parloop {

namespace dsl {

// Whether a node with origin O is to be recorded (tracing) or evaluated now (host). A node
// of only constants and locals follows the thread's state.
template <origin O>
PARLOOP_INLINE bool records() {
  if constexpr (O == origin::symbolic)
    return true;
  else if constexpr (O == origin::host)
    return false;
  else
    return tracing();
}

}  // namespace dsl

// A named local: its value is taken here, not recomputed where it is used. The name is
// kept in the generated source (made unique if needed); without one a name is made up.
// let<T>(v) gives the local type T instead of v's type.
template <class T = void, dsl::operand V>
PARLOOP_INLINE auto let(std::string_view name, const V& v) {
  using R = std::conditional_t<std::is_void_v<T>, dsl::value_t<V>, T>;
  constexpr dsl::origin o = dsl::origin_of<V>;
  using local = dsl::var<R, o == dsl::origin::host ? dsl::origin::host : dsl::origin::neutral>;
  const auto n = dsl::as_node(v);
  if (dsl::records<o>()) {
    if constexpr (o != dsl::origin::host) {
      ir::builder& b = dsl::recorder();
      const ir::id value = b.cast(scalar_of<R>(), n.lower(b));
      return local::traced(b.let(name, scalar_of<R>(), value));
    }
  }
  if constexpr (o != dsl::origin::symbolic)
    return local::host(static_cast<R>(n.eval()));
  else
    throw trace_error("a traced value was used outside of its kernel trace");
}
template <class T = void, dsl::operand V>
PARLOOP_INLINE auto let(const V& v) {
  return let<T>(std::string_view{}, v);
}

// c ? a : b as a value; with C++ numbers only, computed now.
template <dsl::operand C, dsl::operand A, dsl::operand B>
PARLOOP_INLINE auto select(const C& c, const A& a, const B& b) {
  if constexpr (std::is_arithmetic_v<C> && std::is_arithmetic_v<A> && std::is_arithmetic_v<B>) {
    return c ? static_cast<std::common_type_t<A, B>>(a) : static_cast<std::common_type_t<A, B>>(b);
  } else {
    return dsl::select_node<dsl::node_t<C>, dsl::node_t<A>, dsl::node_t<B>>(dsl::as_node(c), dsl::as_node(a),
                                                                            dsl::as_node(b));
  }
}

// An explicit conversion, as static_cast<T>.
template <class T, dsl::operand A>
PARLOOP_INLINE auto cast(const A& a) {
  if constexpr (std::is_arithmetic_v<A>)
    return static_cast<T>(a);
  else
    return dsl::cast_node<T, dsl::node_t<A>>(dsl::as_node(a));
}

// The result of pl::if_: chains else_if_ and else_.
class if_chain {
 public:
  static if_chain recorded(ir::id stmt) { return if_chain(true, false, stmt); }
  PARLOOP_INLINE static if_chain evaluated(bool taken) { return if_chain(false, taken, ir::no_id); }

  template <class F>
  PARLOOP_INLINE void else_(F&& body) const {
    if (recorded_) {
      ir::builder& b = dsl::recorder();
      b.begin_else(stmt_);
      std::forward<F>(body)();
      b.end_block();
    } else if (!taken_) {
      std::forward<F>(body)();
    }
  }

  template <dsl::operand C, class F>
  PARLOOP_INLINE if_chain else_if_(const C& c, F&& body) const;

 private:
  PARLOOP_INLINE if_chain(bool recorded, bool taken, ir::id stmt) : recorded_(recorded), taken_(taken), stmt_(stmt) {}
  bool recorded_;
  bool taken_;
  ir::id stmt_;
};

// Runs `body` where c holds. A C++ bool decides now, while tracing too (the branch not
// taken is not in the kernel); a kernel value becomes an if in the generated code.
template <dsl::operand C, class F>
PARLOOP_INLINE if_chain if_(const C& c, F&& body) {
  if constexpr (std::is_arithmetic_v<C>) {
    if (c) std::forward<F>(body)();
    return if_chain::evaluated(static_cast<bool>(c));
  } else {
    constexpr dsl::origin o = dsl::origin_of<C>;
    const auto n = dsl::as_node(c);
    if (dsl::records<o>()) {
      if constexpr (o != dsl::origin::host) {
        ir::builder& b = dsl::recorder();
        const ir::id s = b.begin_if(n.lower(b));
        std::forward<F>(body)();
        b.end_block();
        return if_chain::recorded(s);
      }
    }
    if constexpr (o != dsl::origin::symbolic) {
      const bool taken = static_cast<bool>(n.eval());
      if (taken) std::forward<F>(body)();
      return if_chain::evaluated(taken);
    } else {
      throw trace_error("a traced value was used outside of its kernel trace");
    }
  }
}

template <dsl::operand C, class F>
PARLOOP_INLINE if_chain if_chain::else_if_(const C& c, F&& body) const {
  if (recorded_) {
    // Inside a recorded else, a C++ bool becomes a constant condition so that the chain's
    // later branches land in the same else block.
    ir::builder& b = dsl::recorder();
    b.begin_else(stmt_);
    if_chain inner = [&] {
      if constexpr (std::is_arithmetic_v<C>)
        return if_(dsl::as_node(static_cast<bool>(c)), std::forward<F>(body));
      else
        return if_(c, std::forward<F>(body));
    }();
    b.end_block();
    return inner;
  }
  if (taken_) return *this;
  return if_(c, std::forward<F>(body));
}

// for (i = lo; i < hi; ++i) body(i) as a loop in the generated code (a C++ for loop over a
// kernel argument unrolls instead). body receives the loop variable as a read-only value.
template <dsl::operand Lo, dsl::operand Hi, class F>
PARLOOP_INLINE void for_(const Lo& lo, const Hi& hi, F&& body) {
  using T = std::common_type_t<dsl::value_t<Lo>, dsl::value_t<Hi>>;
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "parloop: pl::for_ takes integer bounds");
  constexpr dsl::origin o = dsl::combine(dsl::origin_of<Lo>, dsl::origin_of<Hi>);
  static_assert(dsl::compatible(dsl::origin_of<Lo>, dsl::origin_of<Hi>),
                "parloop: host and traced values cannot meet in one statement");
  const auto l = dsl::as_node(lo);
  const auto h = dsl::as_node(hi);
  if (dsl::records<o>()) {
    if constexpr (o != dsl::origin::host) {
      ir::builder& b = dsl::recorder();
      const ir::id lo_id = b.cast(scalar_of<T>(), l.lower(b));
      const ir::id hi_id = b.cast(scalar_of<T>(), h.lower(b));
      const auto i = dsl::var<T>::traced(b.begin_for(scalar_of<T>(), lo_id, hi_id));
      body(dsl::var_ref<T>(i));
      b.end_block();
      return;
    }
  }
  if constexpr (o != dsl::origin::symbolic) {
    using counter = dsl::var<T, o == dsl::origin::host ? dsl::origin::host : dsl::origin::neutral>;
    auto i = counter::host(static_cast<T>(l.eval()));
    for (const T end = static_cast<T>(h.eval()); i.host_value() < end; i.set_host_value(i.host_value() + 1)) {
      body(dsl::var_ref<T, counter::where>(i));
    }
  } else {
    throw trace_error("a traced value was used outside of its kernel trace");
  }
}

}  // namespace parloop
