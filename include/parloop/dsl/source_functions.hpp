// SPDX-License-Identifier: MIT
// A C function's definition found in a larger source file -- an OP2 application's .cpp, where
// OP2's translators find a kernel that has no header of its own -- with what it needs from that
// file: the file-scope functions it calls and the macros it names, each with theirs, in the
// file's order. The rest of the file (its includes, main, the host's code) is left out: a device
// compiler could not read it.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parloop::detail {

// One definition at file scope (inside a namespace or extern "C" block too): a function's, from
// the end of the declaration before it to its closing brace, or a #define's lines.
struct source_definition {
  std::string name;
  std::size_t begin = 0, end = 0;
  bool macro = false;
  // A function's: where its parameters' parentheses are.
  std::size_t open = 0, close = 0;
};

inline bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The text with comments, string and character literals and directive lines blanked (newlines
// kept), so that braces and names are read only where the compiler reads them; the #define lines.
inline std::string code_only(std::string_view text, std::vector<source_definition>& defines) {
  std::string out(text);
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < out.size(); ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  bool line_start = true;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (line_start && c == '#') {
      // A directive runs to the end of its line, and on past each backslash-newline.
      std::size_t end = i;
      while (end < text.size() && text[end] != '\n') end += text[end] == '\\' && end + 1 < text.size() ? 2 : 1;
      std::size_t at = i + 1;
      while (at < end && (text[at] == ' ' || text[at] == '\t')) ++at;
      if (text.compare(at, 6, "define") == 0 && at + 6 < end && (text[at + 6] == ' ' || text[at + 6] == '\t')) {
        at += 6;
        while (at < end && (text[at] == ' ' || text[at] == '\t')) ++at;
        std::size_t name_end = at;
        while (name_end < end && is_name_char(text[name_end])) ++name_end;
        if (name_end > at) defines.push_back({std::string(text.substr(at, name_end - at)), i, end, true});
      }
      blank(i, end);
      i = end;
    } else if (text.compare(i, 2, "//") == 0) {
      const std::size_t end = std::min(text.find('\n', i), text.size());
      blank(i, end);
      i = end;
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t close = text.find("*/", i + 2);
      const std::size_t end = close == std::string_view::npos ? text.size() : close + 2;
      blank(i, end);
      i = end;
    } else if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"' &&
               (i == 0 || !is_name_char(text[i - 1]) || text[i - 1] == '8' || text[i - 1] == 'u' ||
                text[i - 1] == 'U' || text[i - 1] == 'L')) {
      // A C++ raw string: R"delimiter( ... )delimiter".
      const std::size_t open = text.find('(', i + 2);
      const std::string close =
          open == std::string_view::npos ? std::string() : ")" + std::string(text.substr(i + 2, open - i - 2)) + "\"";
      const std::size_t at = close.empty() ? std::string_view::npos : text.find(close, open);
      const std::size_t end = at == std::string_view::npos ? text.size() : at + close.size();
      blank(i, end);
      i = end;
      line_start = false;
    } else if (c == '"' || (c == '\'' && (i == 0 || !std::isxdigit(static_cast<unsigned char>(text[i - 1]))))) {
      // A literal, to its closing quote (a ' between digits is C++14's digit separator).
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != c && text[end] != '\n') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      blank(i, end);
      i = end;
      line_start = false;
    } else {
      line_start = false;
      ++i;
    }
  }
  return out;
}

// The functions defined in `code` (as code_only gives it) at file scope, in order.
inline std::vector<source_definition> function_definitions(std::string_view code) {
  std::vector<source_definition> found;
  std::vector<bool> open;     // each open brace: whether it is a namespace's or extern "C"'s
  std::size_t statement = 0;  // where the declaration being read began
  const auto skip_back = [&](std::size_t at) {
    while (at > 0 && std::isspace(static_cast<unsigned char>(code[at - 1])) != 0) --at;
    return at;
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    const bool at_file_scope = std::all_of(open.begin(), open.end(), [](bool transparent) { return transparent; });
    if (c == ';' && at_file_scope) {
      statement = i + 1;
    } else if (c == '{') {
      if (!at_file_scope) {
        open.push_back(false);
        continue;
      }
      std::string_view head = code.substr(statement, i - statement);
      while (!head.empty() && std::isspace(static_cast<unsigned char>(head.front())) != 0) head.remove_prefix(1);
      if (head.starts_with("namespace") || head.starts_with("extern")) {
        open.push_back(true);
        statement = i + 1;
        continue;
      }
      open.push_back(false);
      // A function's body follows its parameters' closing parenthesis.
      std::size_t at = skip_back(i);
      if (at == 0 || code[at - 1] != ')') continue;
      int depth = 0;
      std::size_t paren = at;
      while (paren > statement) {
        --paren;
        if (code[paren] == ')') ++depth;
        if (code[paren] == '(' && --depth == 0) break;
      }
      const std::size_t name_end = skip_back(paren);
      std::size_t name_begin = name_end;
      while (name_begin > statement && is_name_char(code[name_begin - 1])) --name_begin;
      if (depth != 0 || name_begin == name_end) continue;
      std::size_t begin = statement;
      while (begin < name_begin && std::isspace(static_cast<unsigned char>(code[begin])) != 0) ++begin;
      found.push_back({std::string(code.substr(name_begin, name_end - name_begin)), begin, 0, false, paren, at - 1});
    } else if (c == '}' && !open.empty()) {
      const bool closes_function = !open.back() && std::all_of(open.begin(), open.end() - 1, [](bool t) { return t; });
      open.pop_back();
      if (closes_function && !found.empty() && found.back().end == 0) found.back().end = i + 1;
      if (std::all_of(open.begin(), open.end(), [](bool t) { return t; })) statement = i + 1;
    }
  }
  // A definition the file ends inside is not one.
  std::erase_if(found, [](const source_definition& d) { return d.end == 0; });
  return found;
}

// Whether `text` says `word` as a name; `call`: followed by an opening parenthesis.
inline bool names_word(std::string_view text, std::string_view word, bool call = false) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    std::size_t end = at + word.size();
    if ((at > 0 && is_name_char(text[at - 1])) || (end < text.size() && is_name_char(text[end]))) continue;
    while (call && end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) != 0) ++end;
    if (!call || (end < text.size() && text[end] == '(')) return true;
  }
  return false;
}

// Function `name`'s definition in `text`, after the file-scope functions it calls and the macros it
// names (and theirs), each in the file's order; none where the text defines no such function.
inline std::optional<std::string> function_with_needs(std::string_view text, std::string_view name) {
  std::vector<source_definition> definitions;
  const std::string code = code_only(text, definitions);
  std::vector<source_definition> functions = function_definitions(code);
  const auto kernel = std::find_if(functions.begin(), functions.end(), [&](const auto& d) { return d.name == name; });
  if (kernel == functions.end()) return std::nullopt;
  const source_definition wanted = *kernel;
  definitions.insert(definitions.end(), functions.begin(), functions.end());
  std::vector<bool> taken(definitions.size(), false);
  std::vector<source_definition> chosen{wanted};
  for (std::size_t next = 0; next < chosen.size(); ++next) {
    // A function's code, comments and literals aside; a macro's whole line (code_only blanks it).
    const std::string_view uses = std::string_view(chosen[next].macro ? text : code)
                                      .substr(chosen[next].begin, chosen[next].end - chosen[next].begin);
    for (std::size_t d = 0; d < definitions.size(); ++d) {
      const source_definition& def = definitions[d];
      if (taken[d] || def.name == name || !names_word(uses, def.name, !def.macro)) continue;
      taken[d] = true;
      chosen.push_back(def);
    }
  }
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  std::string out;
  for (const source_definition& d : chosen) {
    out += text.substr(d.begin, d.end - d.begin);
    out += "\n";
  }
  return out;
}

}  // namespace parloop::detail
