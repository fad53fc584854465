// SPDX-License-Identifier: MIT
// Kernel locals (pl::let, loop variables): a C++ value on the host, a named local in the IR
// while tracing.
#pragma once

#include <string_view>

#include "parloop/dsl/apply.hpp"
#include "parloop/dsl/expr.hpp"
#include "parloop/dsl/recorder.hpp"
#include "parloop/error.hpp"

namespace parloop::dsl {

// Where is origin::host for a local made from a host value (a kernel running on the host), which
// can never be traced: expressions over it are host expressions, decided at compile time. A local
// of constants only is neutral, as its expressions are: traced or not is asked at run time.
template <class T, origin Where = origin::neutral>
class var;

// A local read inside an expression; read-only (loop variables are handed out as these).
template <class T, origin Where = origin::neutral>
struct var_ref : expr<var_ref<T, Where>> {
  using node_type = var_ref;
  using value_type = T;
  static constexpr origin where = Where;

  const var<T, Where>* v;

  PARLOOP_INLINE explicit var_ref(const var<T, Where>& x) : v(&x) {}
  PARLOOP_INLINE T eval() const { return v->value_; }
  ir::id lower(ir::builder& b) const { return b.local_ref(v->local_); }
};

template <class T, origin Where>
class var : public expr<var<T, Where>> {
  static_assert(Where != origin::symbolic, "parloop: a kernel local is neutral or a host value");

 public:
  using node_type = var_ref<T, Where>;
  using value_type = T;
  static constexpr origin where = Where;

  PARLOOP_INLINE static var host(T value) { return var(value, ir::no_id); }
  static var traced(ir::id local) { return var(T{}, local); }

  // A copy is a new local holding the same value, as a copied C++ variable is.
  var(const var& o) : value_(o.value_) {
    if (o.traced()) {
      ir::builder& b = recorder();
      local_ = b.let("", scalar_of<T>(), b.local_ref(o.local_));
    }
  }

  PARLOOP_INLINE var& operator=(const var& o) { return update<ir::op::add, false>(var_ref<T, Where>(o)); }
  template <operand V>
  PARLOOP_INLINE var& operator=(const V& v) {
    return update<ir::op::add, false>(v);
  }
  template <operand V>
  PARLOOP_INLINE var& operator+=(const V& v) {
    return update<ir::op::add, true>(v);
  }
  template <operand V>
  PARLOOP_INLINE var& operator-=(const V& v) {
    return update<ir::op::sub, true>(v);
  }
  template <operand V>
  PARLOOP_INLINE var& operator*=(const V& v) {
    return update<ir::op::mul, true>(v);
  }
  template <operand V>
  PARLOOP_INLINE var& operator/=(const V& v) {
    return update<ir::op::div, true>(v);
  }

  PARLOOP_INLINE bool traced() const {
    if constexpr (Where == origin::host)
      return false;
    else
      return local_ != ir::no_id;
  }
  // Loop variables advance on the host without a statement.
  PARLOOP_INLINE void set_host_value(T v) { value_ = v; }
  PARLOOP_INLINE T host_value() const { return value_; }
  ir::id local() const { return local_; }

 private:
  friend struct var_ref<T, Where>;

  PARLOOP_INLINE var(T value, ir::id local) : value_(value), local_(local) {}

  // Plain assignment when Compound is false, else `op=`.
  template <ir::op O, bool Compound, class V>
  PARLOOP_INLINE var& update(const V& v) {
    const auto n = as_node(v);
    constexpr origin o = node_t<V>::where;
    if (traced()) {
      if constexpr (o != origin::host) {
        ir::builder& b = recorder();
        const ir::id value = n.lower(b);
        const ir::id target = b.local_ref(local_);
        if (Compound)
          b.update(O, target, value);
        else
          b.assign(target, value);
        return *this;
      }
    } else {
      if constexpr (o != origin::symbolic) {
        if constexpr (Compound)
          value_ = static_cast<T>(apply<O>(value_, n.eval()));
        else
          value_ = static_cast<T>(n.eval());
        return *this;
      }
    }
    throw trace_error("a kernel local was assigned a value from another kernel call");
  }

  T value_;
  ir::id local_ = ir::no_id;
};

}  // namespace parloop::dsl
