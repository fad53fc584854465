// SPDX-License-Identifier: MIT
// The value of a kernel source's #if expression, as C's preprocessor computes it, where the
// include resolver can know it (dsl/source_macros.hpp says which macros it knows).
#pragma once

#include <cctype>
#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "parloop/dsl/source_macros.hpp"

namespace parloop::detail {

// The value of an #if expression, as C's preprocessor computes it (identifiers no macro names are
// 0); none where it depends on what the resolver does not know, or is not one it can read.
class condition_value {
 public:
  condition_value(std::string_view text, const macro_table& macros, int depth = 0)
      : text_(text), macros_(macros), depth_(depth) {}

  std::optional<long long> value() {
    if (depth_ > max_depth) return std::nullopt;
    const value_t v = conditional();
    skip_blanks();
    if (!ok_ || at_ != text_.size() || !v.known) return std::nullopt;
    return v.number;
  }

 private:
  struct value_t {
    bool known = true;
    long long number = 0;
  };
  static constexpr int max_depth = 32;

  static value_t unknown() { return {false, 0}; }

  void skip_blanks() {
    for (;;) {
      while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])) != 0) ++at_;
      if (text_.compare(at_, 2, "//") == 0) {
        at_ = text_.size();
      } else if (text_.compare(at_, 2, "/*") == 0) {
        const std::size_t end = text_.find("*/", at_ + 2);
        at_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }
  bool take(std::string_view op) {
    skip_blanks();
    if (text_.compare(at_, op.size(), op) != 0) return false;
    // `<` is not the start of `<<` or `<=`, nor `&` of `&&`, nor `|` of `||`, nor `!` of `!=`.
    if (op.size() == 1 && at_ + 1 < text_.size()) {
      const char next = text_[at_ + 1];
      if ((op == "<" && (next == '<' || next == '=')) || (op == ">" && (next == '>' || next == '=')) ||
          (op == "&" && next == '&') || (op == "|" && next == '|') || (op == "!" && next == '=') ||
          (op == "=" && next == '=')) {
        return false;
      }
    }
    at_ += op.size();
    return true;
  }

  value_t conditional() {
    const value_t c = logical_or();
    if (!take("?")) return c;
    const value_t a = conditional();
    if (!take(":")) ok_ = false;
    const value_t b = conditional();
    if (!c.known) return unknown();
    return c.number != 0 ? a : b;
  }
  value_t logical_or() {
    value_t l = logical_and();
    while (take("||")) {
      const value_t r = logical_and();
      if ((l.known && l.number != 0) || (r.known && r.number != 0))
        l = {true, 1};
      else if (!l.known || !r.known)
        l = unknown();
      else
        l = {true, 0};
    }
    return l;
  }
  value_t logical_and() {
    value_t l = binary(0);
    while (take("&&")) {
      const value_t r = binary(0);
      if ((l.known && l.number == 0) || (r.known && r.number == 0))
        l = {true, 0};
      else if (!l.known || !r.known)
        l = unknown();
      else
        l = {true, 1};
    }
    return l;
  }
  // The binary operators below && by precedence, loosest first.
  value_t binary(int level) {
    static constexpr std::string_view levels[][4] = {
        {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    constexpr int count = static_cast<int>(std::size(levels));
    if (level == count) return unary();
    value_t l = binary(level + 1);
    for (;;) {
      std::string_view op;
      for (std::string_view o : levels[level]) {
        if (!o.empty() && take(o)) {
          op = o;
          break;
        }
      }
      if (op.empty()) return l;
      const value_t r = binary(level + 1);
      if (!l.known || !r.known) {
        l = unknown();
        continue;
      }
      l.number = apply(op, l.number, r.number, l.known);
    }
  }
  static long long apply(std::string_view op, long long a, long long b, bool& known) {
    const auto ua = static_cast<unsigned long long>(a), ub = static_cast<unsigned long long>(b);
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "&") return a & b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    // A shift past the width, or a division by zero, is the compiler's to report.
    if (op == "<<" || op == ">>") {
      if (b >= 0 && b <= 63) return static_cast<long long>(op == "<<" ? ua << b : ua >> b);
      known = false;
      return 0;
    }
    if (op == "+") return static_cast<long long>(ua + ub);
    if (op == "-") return static_cast<long long>(ua - ub);
    if (op == "*") return static_cast<long long>(ua * ub);
    if (b == 0 || (a == std::numeric_limits<long long>::min() && b == -1)) {
      known = false;
      return 0;
    }
    return op == "/" ? a / b : a % b;
  }

  value_t unary() {
    if (take("!")) {
      const value_t v = unary();
      return v.known ? value_t{true, v.number == 0} : v;
    }
    if (take("~")) {
      const value_t v = unary();
      return v.known ? value_t{true, ~v.number} : v;
    }
    if (take("-")) {
      const value_t v = unary();
      return v.known ? value_t{true, static_cast<long long>(0ULL - static_cast<unsigned long long>(v.number))} : v;
    }
    if (take("+")) return unary();
    return primary();
  }

  value_t primary() {
    skip_blanks();
    if (take("(")) {
      const value_t v = conditional();
      if (!take(")")) ok_ = false;
      return v;
    }
    if (at_ >= text_.size()) {
      ok_ = false;
      return unknown();
    }
    if (std::isdigit(static_cast<unsigned char>(text_[at_])) != 0) return number();
    if (text_[at_] == '\'') return character();
    const std::size_t end = macro_table::name_end(text_.substr(at_));
    if (end == 0) {
      ok_ = false;
      return unknown();
    }
    const std::string_view name = text_.substr(at_, end);
    at_ += end;
    if (name == "defined") return defined();
    if (macros_.defined(name) == truth::unknown) return unknown();
    const std::string* body = macros_.body(name);
    if (body == nullptr) return {true, 0};
    // A macro's body is an expression of its own (a macro naming itself is not expanded again:
    // the depth bounds it).
    const std::optional<long long> v = condition_value(*body, macros_, depth_ + 1).value();
    return v ? value_t{true, *v} : unknown();
  }

  value_t defined() {
    const bool parenthesised = take("(");
    skip_blanks();
    const std::size_t end = macro_table::name_end(text_.substr(at_));
    if (end == 0) {
      ok_ = false;
      return unknown();
    }
    const truth t = macros_.defined(text_.substr(at_, end));
    at_ += end;
    if (parenthesised && !take(")")) ok_ = false;
    if (t == truth::unknown) return unknown();
    return {true, t == truth::yes};
  }

  value_t number() {
    std::size_t end = at_;
    while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) != 0)) ++end;
    std::string digits(text_.substr(at_, end - at_));
    at_ = end;
    while (!digits.empty() &&
           (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L')) {
      digits.pop_back();
    }
    const int base = digits.size() > 1 && digits[0] == '0' ? (digits[1] == 'x' || digits[1] == 'X' ? 16 : 8) : 10;
    const std::size_t first = base == 16 ? 2 : 0;
    if (first >= digits.size()) {
      ok_ = false;
      return unknown();
    }
    unsigned long long v = 0;
    for (std::size_t i = first; i < digits.size(); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[i])));
      const int d = std::isdigit(static_cast<unsigned char>(c)) != 0 ? c - '0'
                    : c >= 'a' && c <= 'f'                           ? c - 'a' + 10
                                                                     : 99;
      if (d >= base) {
        ok_ = false;
        return unknown();
      }
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    }
    return {true, static_cast<long long>(v)};
  }

  value_t character() {
    // 'c' without escapes; an escape is left to the compiler.
    if (at_ + 2 < text_.size() && text_[at_ + 1] != '\\' && text_[at_ + 2] == '\'') {
      const long long c = static_cast<unsigned char>(text_[at_ + 1]);
      at_ += 3;
      return {true, c};
    }
    ok_ = false;
    return unknown();
  }

  std::string_view text_;
  const macro_table& macros_;
  int depth_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace parloop::detail
