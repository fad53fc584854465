// SPDX-License-Identifier: MIT
// Writes indented source text, one statement per line.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "parloop/config.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::codegen {

class source_writer {
 public:
  template <class... Args>
  void line(parloop::detail::format_string<Args...> format, const Args&... args) {
    indent();
    out_ += parloop::detail::format<Args...>(format, args...);
    out_ += '\n';
  }
  // A line that ends in `{` (a bare `{` for an empty format), and one level deeper after it.
  template <class... Args>
  void open(parloop::detail::format_string<Args...> format, const Args&... args) {
    indent();
    const std::string head = parloop::detail::format<Args...>(format, args...);
    out_ += head;
    out_ += head.empty() ? "{\n" : " {\n";
    ++depth_;
  }
  // `}` (followed by `tail`, e.g. " else {") one level up.
  void close(std::string_view tail = "") {
    --depth_;
    indent();
    out_ += '}';
    out_ += tail;
    out_ += '\n';
  }
  // `} between {`: the end of one block and the start of the next (else).
  void reopen(std::string_view between) {
    --depth_;
    indent();
    out_ += parloop::detail::format("}} {} {{\n", between);
    ++depth_;
  }
  void blank() { out_ += '\n'; }
  // Text written as it is (the user's own source).
  void verbatim(std::string_view text) {
    out_ += text;
    if (!text.empty() && text.back() != '\n') out_ += '\n';
  }
  void append(const source_writer& other) { out_ += other.out_; }

  const std::string& text() const { return out_; }

 private:
  void indent() { out_.append(static_cast<std::size_t>(depth_) * 2, ' '); }

  std::string out_;
  int depth_ = 0;
};

// The source with a line number in front of each line, as error messages show it.
inline std::string with_line_numbers(std::string_view text) {
  std::string out;
  int n = 1;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += parloop::detail::format("{:4} | {}\n", n++, line);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace parloop::codegen

PARLOOP_COLD_END
