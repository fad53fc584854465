// SPDX-License-Identifier: MIT
// The conditionals of a kernel's C source (#if, #ifdef, #ifndef, #elif, #else, #endif) as far as
// the include resolver can decide them: which #include lines a device compiler will reach. The
// text itself is left to the compiler, conditionals and all; only the includes in a branch that
// cannot be taken are not read. A condition on what the resolver cannot know (see
// dsl/source_macros.hpp) leaves its branch undecided.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "parloop/dsl/source_condition_value.hpp"
#include "parloop/dsl/source_macros.hpp"

namespace parloop::detail {

inline truth truth_of(std::optional<long long> v) {
  if (!v) return truth::unknown;
  return *v != 0 ? truth::yes : truth::no;
}

// The conditionals open in one file, innermost last: whether the text now is reached.
class condition_stack {
 public:
  // A directive's name and the rest of its line; whether it was a conditional.
  bool follow(std::string_view name, std::string_view rest, const macro_table& macros) {
    if (name == "if") {
      push(truth_of(condition_value(rest, macros).value()));
    } else if (name == "ifdef" || name == "ifndef") {
      const std::size_t end = macro_table::name_end(rest);
      truth t = end == 0 ? truth::unknown : macros.defined(rest.substr(0, end));
      if (name == "ifndef" && t != truth::unknown) t = t == truth::yes ? truth::no : truth::yes;
      push(t);
    } else if (name == "elif" || name == "else") {
      if (frames_.empty()) return true;  // the compiler's error to report
      frame& f = frames_.back();
      const truth own = name == "else" ? truth::yes : truth_of(condition_value(rest, macros).value());
      f.now = f.some_yes ? truth::no : (f.some_unknown && own != truth::no) ? truth::unknown : own;
      note(f);
    } else if (name == "endif") {
      if (!frames_.empty()) frames_.pop_back();
    } else {
      return false;
    }
    return true;
  }

  // Whether the text is reached: yes where every open branch is taken.
  truth reached() const {
    truth t = truth::yes;
    for (const frame& f : frames_) {
      if (f.now == truth::no) return truth::no;
      if (f.now == truth::unknown) t = truth::unknown;
    }
    return t;
  }

 private:
  struct frame {
    truth now;
    bool some_yes = false;      // an earlier or this branch is taken
    bool some_unknown = false;  // an earlier or this branch may be
  };
  void push(truth t) {
    frames_.push_back(frame{t});
    note(frames_.back());
  }
  static void note(frame& f) {
    f.some_yes = f.some_yes || f.now == truth::yes;
    f.some_unknown = f.some_unknown || f.now == truth::unknown;
  }

  std::vector<frame> frames_;
};

}  // namespace parloop::detail
