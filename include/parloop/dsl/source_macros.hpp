// SPDX-License-Identifier: MIT
// The macros a kernel's C source defines, as far as the include resolver can know them when it
// follows the source's conditionals (dsl/source_conditions.hpp). What it cannot know -- a macro
// the device compiler defines (__CUDACC__, __OPENCL_VERSION__: names reserved to the
// implementation), one defined or undefined in a branch it could not decide, a function-like
// macro -- it says is unknown.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace parloop::detail {

// A condition's truth where the resolver can tell it.
enum class truth { no, yes, unknown };

// The macros a kernel's source has defined so far, as the resolver followed it.
class macro_table {
 public:
  // `rest` is the #define line after the directive's name: the macro's name, then its body.
  void define(std::string_view rest) {
    const std::size_t end = name_end(rest);
    if (end == 0) return;
    const std::string name(rest.substr(0, end));
    // A function-like macro's body takes arguments, which #if cannot give it.
    macros_[name] =
        end < rest.size() && rest[end] == '(' ? entry{true, false, {}} : entry{true, true, trim(rest.substr(end))};
  }
  void undefine(std::string_view rest) { set(rest, entry{false, true, {}}); }
  // Defined or undefined in a branch the resolver could not decide.
  void forget(std::string_view rest) { set(rest, entry{true, false, {}}); }

  truth defined(std::string_view name) const {
    if (const auto m = macros_.find(std::string(name)); m != macros_.end()) {
      if (!m->second.known) return truth::unknown;
      return m->second.defined ? truth::yes : truth::no;
    }
    return reserved(name) ? truth::unknown : truth::no;
  }
  // An object-like macro's body, where the resolver knows it.
  const std::string* body(std::string_view name) const {
    const auto m = macros_.find(std::string(name));
    return m != macros_.end() && m->second.known && m->second.defined ? &m->second.body : nullptr;
  }

  static std::size_t name_end(std::string_view text) {
    std::size_t end = 0;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) ++end;
    return end > 0 && std::isdigit(static_cast<unsigned char>(text[0])) == 0 ? end : 0;
  }

 private:
  struct entry {
    bool defined;
    bool known;  // whether `defined` and `body` are what the compiler will have
    std::string body;
  };

  void set(std::string_view rest, entry e) {
    if (const std::size_t end = name_end(rest); end > 0) macros_[std::string(rest.substr(0, end))] = std::move(e);
  }
  // Names reserved to the implementation: what a device compiler may define itself.
  static bool reserved(std::string_view name) {
    return name.size() >= 2 && name[0] == '_' &&
           (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1])) != 0);
  }
  static std::string trim(std::string_view s) {
    // A comment ends the body as far as #if is concerned.
    if (const std::size_t c = std::min(s.find("//"), s.find("/*")); c != std::string_view::npos) s = s.substr(0, c);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
    return std::string(s);
  }

  std::map<std::string, entry> macros_;
};

}  // namespace parloop::detail
