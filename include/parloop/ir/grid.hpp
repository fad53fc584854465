// SPDX-License-Identifier: MIT
// The grid-size functor: a launch's number of work-groups as a function of the iteration
// range [start, end) and device facts. A small expression tree, kept as a postfix program
// that is evaluated on a fixed stack (no allocation, no parsing) and stored with the binary.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop::ir {

// What the device contributes to a grid size.
struct device_facts {
  std::int64_t compute_units = 1;
};

enum class grid_op : std::uint8_t { constant, start, end, compute_units, add, sub, mul, ceil_div, min, max };

struct grid_node {
  grid_op op;
  std::int64_t value = 0;  // for constant

  friend bool operator==(const grid_node&, const grid_node&) = default;
};

// An expression being built: strategies write `ceil_div(end() - start(), 256)`.
class grid_term {
 public:
  static grid_term constant(std::int64_t v) { return grid_term({{grid_op::constant, v}}); }
  static grid_term leaf(grid_op op) { return grid_term({{op, 0}}); }

  friend grid_term operator+(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::add); }
  friend grid_term operator-(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::sub); }
  friend grid_term operator*(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::mul); }
  friend grid_term ceil_div(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::ceil_div); }
  friend grid_term min(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::min); }
  friend grid_term max(grid_term a, const grid_term& b) { return combine(std::move(a), b, grid_op::max); }

  std::vector<grid_node> take() && { return std::move(program_); }

 private:
  explicit grid_term(std::vector<grid_node> program) : program_(std::move(program)) {}
  static grid_term combine(grid_term a, const grid_term& b, grid_op op) {
    a.program_.insert(a.program_.end(), b.program_.begin(), b.program_.end());
    a.program_.push_back({op, 0});
    return a;
  }
  std::vector<grid_node> program_;
};

inline grid_term start() { return grid_term::leaf(grid_op::start); }
inline grid_term end() { return grid_term::leaf(grid_op::end); }
inline grid_term compute_units() { return grid_term::leaf(grid_op::compute_units); }
inline grid_term constant(std::int64_t v) { return grid_term::constant(v); }

class grid_size_functor {
 public:
  static constexpr std::size_t max_depth = 16;
  static constexpr std::size_t max_length = 64;
  // The inputs a functor is evaluated with: start and end are indices, and no device has more
  // compute units. A program whose values could pass +-2^62 for such inputs is refused, so that
  // no evaluation overflows.
  static constexpr std::int64_t max_index = std::numeric_limits<index_t>::max();
  static constexpr std::int64_t max_compute_units = std::int64_t{1} << 20;
  static constexpr std::int64_t value_limit = std::int64_t{1} << 62;

  grid_size_functor() = default;
  // Checks the program: a functor read back from a damaged cache entry is refused here, never
  // evaluated into nonsense.
  explicit grid_size_functor(std::vector<grid_node> program) : program_(std::move(program)) { validate(); }
  explicit grid_size_functor(grid_term term) : grid_size_functor(std::move(term).take()) {}

  const std::vector<grid_node>& program() const { return program_; }

  // The number of work-groups for [start, end) on a device; never negative. Takes start and end
  // in [0, max_index] and compute units in [1, max_compute_units].
  std::int64_t operator()(std::int64_t start_index, std::int64_t end_index, const device_facts& device) const {
    std::array<std::int64_t, max_depth> stack{};
    std::size_t top = 0;
    for (const grid_node& n : program_) {
      switch (n.op) {
        case grid_op::constant: stack[top++] = n.value; continue;
        case grid_op::start: stack[top++] = start_index; continue;
        case grid_op::end: stack[top++] = end_index; continue;
        case grid_op::compute_units: stack[top++] = device.compute_units; continue;
        default: break;
      }
      const std::int64_t b = stack[--top];
      std::int64_t& a = stack[top - 1];
      switch (n.op) {
        case grid_op::add: a += b; break;
        case grid_op::sub: a -= b; break;
        case grid_op::mul: a *= b; break;
        case grid_op::ceil_div: a = b > 0 ? (a > 0 ? (a + b - 1) / b : 0) : 0; break;
        case grid_op::min: a = a < b ? a : b; break;
        case grid_op::max: a = a < b ? b : a; break;
        default: break;
      }
    }
    return stack[0] > 0 ? stack[0] : 0;
  }

  // As a formula, for messages and documentation: "ceil_div(end - start, 256)".
  std::string to_string() const {
    std::vector<std::string> stack;
    for (const grid_node& n : program_) {
      switch (n.op) {
        case grid_op::constant: stack.push_back(std::to_string(n.value)); continue;
        case grid_op::start: stack.emplace_back("start"); continue;
        case grid_op::end: stack.emplace_back("end"); continue;
        case grid_op::compute_units: stack.emplace_back("compute_units"); continue;
        default: break;
      }
      std::string b = std::move(stack.back());
      stack.pop_back();
      std::string& a = stack.back();
      switch (n.op) {
        case grid_op::add: a = parloop::detail::format("({} + {})", a, b); break;
        case grid_op::sub: a = parloop::detail::format("({} - {})", a, b); break;
        case grid_op::mul: a = parloop::detail::format("({} * {})", a, b); break;
        case grid_op::ceil_div: a = parloop::detail::format("ceil_div({}, {})", strip(a), strip(b)); break;
        case grid_op::min: a = parloop::detail::format("min({}, {})", strip(a), strip(b)); break;
        case grid_op::max: a = parloop::detail::format("max({}, {})", strip(a), strip(b)); break;
        default: break;
      }
    }
    return stack.empty() ? std::string() : strip(stack.back());
  }

  friend bool operator==(const grid_size_functor&, const grid_size_functor&) = default;

 private:
  static std::string strip(const std::string& s) {
    return s.size() > 1 && s.front() == '(' && s.back() == ')' ? s.substr(1, s.size() - 2) : s;
  }

  void validate() const {
    if (program_.empty() || program_.size() > max_length) {
      throw error(
          parloop::detail::format("grid-size functor: {} operations (1 to {} allowed)", program_.size(), max_length));
    }
    std::size_t depth = 0;
    for (const grid_node& n : program_) {
      switch (n.op) {
        case grid_op::constant:
        case grid_op::start:
        case grid_op::end:
        case grid_op::compute_units:
          if (++depth > max_depth) throw error("grid-size functor: the expression is too deep");
          break;
        case grid_op::add:
        case grid_op::sub:
        case grid_op::mul:
        case grid_op::ceil_div:
        case grid_op::min:
        case grid_op::max:
          if (depth < 2) throw error("grid-size functor: an operation lacks its operands");
          --depth;
          break;
        default:
          throw error(parloop::detail::format("grid-size functor: unknown operation {}", static_cast<int>(n.op)));
      }
    }
    if (depth != 1) throw error("grid-size functor: the expression does not reduce to one value");
    check_range();
  }

  // The interval of each value the program computes, for every input it takes: a constant that
  // no strategy writes (a damaged entry's) must not make an evaluation overflow.
  void check_range() const {
    struct interval {
      std::int64_t lo, hi;
    };
    const auto within = [](bool overflowed, std::int64_t v) {
      if (overflowed || v > value_limit || v < -value_limit) {
        throw error("grid-size functor: its values can pass 2^62 for indices in range (a damaged program)");
      }
      return v;
    };
    const auto add = [&](std::int64_t a, std::int64_t b) {
      std::int64_t r = 0;
      return within(__builtin_add_overflow(a, b, &r), r);
    };
    const auto sub = [&](std::int64_t a, std::int64_t b) {
      std::int64_t r = 0;
      return within(__builtin_sub_overflow(a, b, &r), r);
    };
    const auto mul = [&](std::int64_t a, std::int64_t b) {
      std::int64_t r = 0;
      return within(__builtin_mul_overflow(a, b, &r), r);
    };
    std::array<interval, max_depth> stack{};
    std::size_t top = 0;
    for (const grid_node& n : program_) {
      switch (n.op) {
        case grid_op::constant: stack[top++] = {within(false, n.value), n.value}; continue;
        case grid_op::start:
        case grid_op::end: stack[top++] = {0, max_index}; continue;
        case grid_op::compute_units: stack[top++] = {1, max_compute_units}; continue;
        default: break;
      }
      const interval b = stack[--top];
      interval& a = stack[top - 1];
      switch (n.op) {
        case grid_op::add: a = {add(a.lo, b.lo), add(a.hi, b.hi)}; break;
        case grid_op::sub: a = {sub(a.lo, b.hi), sub(a.hi, b.lo)}; break;
        case grid_op::mul: {
          const std::array<std::int64_t, 4> p{mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)};
          a = {std::min({p[0], p[1], p[2], p[3]}), std::max({p[0], p[1], p[2], p[3]})};
          break;
        }
        case grid_op::ceil_div:
          // Evaluated as (a + b - 1) / b where both are positive: at most a.
          add(a.hi, b.hi);
          a = {0, std::max<std::int64_t>(a.hi, 0)};
          break;
        case grid_op::min: a = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; break;
        case grid_op::max: a = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; break;
        default: break;
      }
    }
  }

  std::vector<grid_node> program_;
};

}  // namespace parloop::ir
