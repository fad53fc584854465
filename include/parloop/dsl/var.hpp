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

template <class T>
class var;

// A local read inside an expression; read-only (loop variables are handed out as these).
template <class T>
struct var_ref : expr<var_ref<T>> {
  using node_type = var_ref;
  using value_type = T;
  static constexpr origin where = origin::neutral;

  const var<T>* v;

  explicit var_ref(const var<T>& x) : v(&x) {}
  T eval() const { return v->value_; }
  ir::id lower(ir::builder& b) const { return b.local_ref(v->local_); }
};

template <class T>
class var : public expr<var<T>> {
 public:
  using node_type = var_ref<T>;
  using value_type = T;
  static constexpr origin where = origin::neutral;

  static var host(T value) { return var(value, ir::no_id); }
  static var traced(ir::id local) { return var(T{}, local); }

  // A copy is a new local holding the same value, as a copied C++ variable is.
  var(const var& o) : value_(o.value_) {
    if (o.traced()) {
      ir::builder& b = recorder();
      local_ = b.let("", scalar_of<T>(), b.local_ref(o.local_));
    }
  }

  var& operator=(const var& o) { return update<ir::op::add, false>(var_ref<T>(o)); }
  template <operand V>
  var& operator=(const V& v) {
    return update<ir::op::add, false>(v);
  }
  template <operand V>
  var& operator+=(const V& v) {
    return update<ir::op::add, true>(v);
  }
  template <operand V>
  var& operator-=(const V& v) {
    return update<ir::op::sub, true>(v);
  }
  template <operand V>
  var& operator*=(const V& v) {
    return update<ir::op::mul, true>(v);
  }
  template <operand V>
  var& operator/=(const V& v) {
    return update<ir::op::div, true>(v);
  }

  bool traced() const { return local_ != ir::no_id; }
  // Loop variables advance on the host without a statement.
  void set_host_value(T v) { value_ = v; }
  T host_value() const { return value_; }
  ir::id local() const { return local_; }

 private:
  friend struct var_ref<T>;

  var(T value, ir::id local) : value_(value), local_(local) {}

  // Plain assignment when Compound is false, else `op=`.
  template <ir::op O, bool Compound, class V>
  var& update(const V& v) {
    const auto n = as_node(v);
    constexpr origin o = node_t<V>::where;
    if (traced()) {
      if constexpr (o != origin::host) {
        ir::builder& b = recorder();
        const ir::id value = n.lower(b);
        const ir::id target = b.local_ref(local_);
        if (Compound) b.update(O, target, value);
        else b.assign(target, value);
        return *this;
      }
    } else {
      if constexpr (o != origin::symbolic) {
        if constexpr (Compound) value_ = static_cast<T>(apply<O>(value_, n.eval()));
        else value_ = static_cast<T>(n.eval());
        return *this;
      }
    }
    throw trace_error("a kernel local was assigned a value from another kernel call");
  }

  T value_;
  ir::id local_ = ir::no_id;
};

}  // namespace parloop::dsl
