// SPDX-License-Identifier: MIT
// The one place parloop reads its environment, and the one way it warns. Every variable reads
// alike: unset or empty is the default, and any value outside the documented ones is an error
// that names the variable and says what each value does (docs: the README's table).
#pragma once

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// The value of `name`, or nullptr when it is unset or empty: the two mean the same everywhere.
inline const char* environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

// `text` as a whole number from `least` to `most`: decimal digits and nothing else (no sign, no
// spaces), the one rule for every variable that holds a number; none otherwise.
template <class T>
std::optional<T> whole_number(std::string_view text, T least, T most) {
  T n{};
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() == '-') return std::nullopt;
  const auto [stop, failure] = std::from_chars(text.data(), end, n);
  if (failure != std::errc{} || stop != end || n < least || n > most) return std::nullopt;
  return n;
}

// One word a variable may hold, the value it stands for and what it does.
template <class T>
struct environment_choice {
  std::string_view word;
  T value;
  std::string_view meaning;
};

// A word a variable may hold, with its meaning, as an error lists it.
struct listed_choice {
  std::string_view word;
  std::string_view meaning;
  bool is_default;
};

// The error for `name` holding `v`, a word none of `choices` is: each choice with its meaning,
// the default first (as the documentation lists them), then what unset means where a default
// is none of the words (the best backend). Not a template: every variable shares it.
[[noreturn]] inline void refuse_choice(const char* name, const char* v, std::span<const listed_choice> choices,
                                       std::string_view unset_means) {
  std::string listed;
  std::size_t said = 0;
  for (const bool defaults : {true, false}) {
    for (const listed_choice& c : choices) {
      if (c.is_default != defaults) continue;
      listed += said == 0 ? "" : said + 1 == choices.size() ? " or " : ", ";
      listed += parloop::detail::format("{} ({}{})", c.word, c.meaning, c.is_default ? ", the default" : "");
      ++said;
    }
  }
  if (!unset_means.empty()) listed += parloop::detail::format("; unset, {}", unset_means);
  throw argument_error(parloop::detail::format("{} is '{}': use {}", name, v, listed));
}

// The value the word in `name` stands for among `choices`; `by_default` when it is unset or
// empty; another word is refused (refuse_choice).
template <class T>
T choice_from_environment(const char* name, T by_default, std::initializer_list<environment_choice<T>> choices,
                          std::string_view unset_means = {}) {
  const char* v = environment_value(name);
  if (v == nullptr) return by_default;
  for (const environment_choice<T>& c : choices) {
    if (c.word == v) return c.value;
  }
  std::vector<listed_choice> listed;
  for (const environment_choice<T>& c : choices) listed.push_back({c.word, c.meaning, c.value == by_default});
  refuse_choice(name, v, listed, unset_means);
}

// A 0/1 switch: 1 does `what_1`, 0 does `what_0`.
inline bool switch_from_environment(const char* name, bool by_default, std::string_view what_1,
                                    std::string_view what_0) {
  return choice_from_environment<bool>(name, by_default, {{"1", true, what_1}, {"0", false, what_0}});
}

// Says `message` on standard error once per process for each `said` flag: for conditions a run
// goes on past (a cache folder that cannot be used, a source dump that cannot be written).
inline void warn_once(std::atomic<bool>& said, std::string_view message) {
  if (!said.exchange(true)) std::fprintf(stderr, "parloop: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace parloop::detail

PARLOOP_COLD_END
