// SPDX-License-Identifier: MIT
// The #include lines of a kernel's C source, replaced by the files they name, read once when the
// kernel is made: the device compilers then read no file, so a compiled kernel's binary follows
// from its text alone, and the cache key (a hash of that text) changes when a header does.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "parloop/dsl/source_conditions.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

namespace parloop {

// The folders, in order, where a kernel from source's #include lines are looked for:
//   pl::kernel_from_source("res", source, pl::include_path{"kernels", "/opt/app/include"})
// An #include "file" is looked for first beside the file that includes it (none for the source
// itself), then in these folders; an #include <file> in these folders only. Without them an
// #include is an error: the program names where its headers are, never the current folder.
struct include_path {
  include_path() = default;
  include_path(std::initializer_list<std::filesystem::path> given) : folders(given) {}
  explicit include_path(std::vector<std::filesystem::path> given) : folders(std::move(given)) {}
  std::vector<std::filesystem::path> folders;
};

namespace detail {

// Files embedded into the program when it was built (CMake's parloop_embed_sources), by the
// absolute path they had then: found and read in place of the disk's, so that a program run where
// its source tree is absent (a compute node) still has its kernels' sources.
inline std::map<std::string, std::string>& embedded_files() {
  static std::map<std::string, std::string> files;
  return files;
}

inline std::string embedded_key(const std::filesystem::path& p) {
  std::error_code ec;
  const std::filesystem::path whole = std::filesystem::absolute(p, ec);
  return (ec ? p : whole).lexically_normal().string();
}

// A source file's text, embedded or on disk; none where neither has it.
inline std::optional<std::string> source_file_text(const std::filesystem::path& p) {
  if (const auto e = embedded_files().find(embedded_key(p)); e != embedded_files().end()) return e->second;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in && !in.eof()) return std::nullopt;
  return text;
}

// Whether `p` is a source file, embedded or on disk; its name for messages and #pragma once.
inline std::optional<std::string> source_file(const std::filesystem::path& p) {
  const std::string key = embedded_key(p);
  if (embedded_files().contains(key)) return key;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  return std::filesystem::weakly_canonical(p, ec).string();
}

// A directive line's name and the rest of the line, if the line is a directive.
inline std::optional<std::pair<std::string_view, std::string_view>> directive(std::string_view line) {
  const auto skip_blanks = [&](std::size_t at) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    return at;
  };
  std::size_t at = skip_blanks(0);
  if (at == line.size() || line[at] != '#') return std::nullopt;
  at = skip_blanks(at + 1);
  std::size_t end = at;
  while (end < line.size() && (std::isalpha(static_cast<unsigned char>(line[end])) != 0)) ++end;
  return std::pair{line.substr(at, end - at), line.substr(skip_blanks(end))};
}

// Whether a line ends inside a block comment, given whether it began inside one. String and
// character literals are skipped, so that "/*" in a string opens nothing.
inline bool ends_in_comment(std::string_view line, bool in_comment) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (in_comment) {
      if (line.compare(i, 2, "*/") == 0) {
        in_comment = false;
        ++i;
      }
    } else if (line.compare(i, 2, "//") == 0) {
      return false;
    } else if (line.compare(i, 2, "/*") == 0) {
      in_comment = true;
      ++i;
    } else if (line[i] == '"' || line[i] == '\'') {
      const char quote = line[i];
      for (++i; i < line.size() && line[i] != quote; ++i) {
        if (line[i] == '\\') ++i;
      }
    }
  }
  return in_comment;
}

// A NUL byte ends a device compiler's text early: refused, with where it is.
inline void check_no_nul(const std::string& kernel, std::string_view text, const std::string& what) {
  if (const std::size_t at = text.find('\0'); at != std::string_view::npos) {
    throw argument_error(
        parloop::detail::format("kernel_from_source '{}': {} has a NUL byte at offset {}", kernel, what, at));
  }
}

class include_resolver {
 public:
  include_resolver(std::string kernel, const include_path& path) : kernel_(std::move(kernel)), path_(path) {}

  // `text`, named `where` in messages and #line directives, with every #include replaced by its
  // file's text; `folder` is where the text's own file lies (none for the kernel's source).
  std::string expand(const std::string& text, const std::string& where,
                     const std::optional<std::filesystem::path>& folder, int depth) {
    std::string out;
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    bool in_comment = false;
    condition_stack conditions;
    while (std::getline(lines, line)) {
      ++number;
      const bool starts_in_comment = in_comment;
      in_comment = ends_in_comment(line, in_comment);
      const auto d = starts_in_comment ? std::nullopt : directive(line);
      if (!d || conditions.follow(d->first, d->second, macros_)) {
        out += line;
        out += "\n";
        continue;
      }
      // Followed as the preprocessor will: a guard's macro, defined the first time, keeps the
      // second inclusion's #include lines unread; a branch for the other device keeps its own.
      const truth reached = conditions.reached();
      if (d->first == "define" || d->first == "undef") {
        if (reached == truth::unknown)
          macros_.forget(d->second);
        else if (reached == truth::yes && d->first == "define")
          macros_.define(d->second);
        else if (reached == truth::yes)
          macros_.undefine(d->second);
      }
      if (d->first == "pragma" && d->second.starts_with("once") && reached != truth::no) {
        once_.insert(where);
        continue;
      }
      if (d->first != "include" || reached == truth::no) {
        out += line;
        out += "\n";
        continue;
      }
      if (is_builtin_header(d->second)) {
        // OP2 kernels often say it; both device languages have the math functions and printf
        // built in, and neither compiler could find the host's header.
        out += parloop::detail::format("// {} line {}: {} (the device compiler's own)\n", where, number, line);
        continue;
      }
      const std::optional<std::filesystem::path> found = find(d->second, where, number, folder, reached == truth::yes);
      if (!found) {
        // In a branch only the device compiler can decide (#ifdef __CUDACC__), a header none of
        // the folders has is its own (NVRTC's cuda_fp16.h): the line is left to it.
        out += line;
        out += "\n";
        continue;
      }
      const std::filesystem::path& file = *found;
      const std::string name = file.string();
      if (depth >= max_depth) {
        throw argument_error(
            parloop::detail::format("kernel_from_source '{}': {} line {}: includes nest deeper than {} (does a "
                                    "header include itself without a guard?)",
                                    kernel_, where, number, max_depth));
      }
      // Marked by comments, not #line: a compile error lists the text the compiler saw.
      out += parloop::detail::format("// {} line {}: {}\n", where, number, line);
      if (!once_.contains(name)) out += expand(read(file, where, number), name, file.parent_path(), depth + 1);
      out += parloop::detail::format("// end of {}\n", name);
    }
    return out;
  }

 private:
  static constexpr int max_depth = 64;

  // Whether an #include names C's math or stdio header, which a named folder does not replace.
  bool is_builtin_header(std::string_view rest) const {
    constexpr std::string_view builtin[] = {"<math.h>", "<cmath>", "<stdio.h>", "<cstdio>"};
    if (std::none_of(std::begin(builtin), std::end(builtin), [&](std::string_view h) { return rest.starts_with(h); })) {
      return false;
    }
    return !in_folders(rest.substr(1, rest.find('>') - 1));
  }

  // `wanted` in the first of the named folders that has it.
  std::optional<std::filesystem::path> in_folders(const std::filesystem::path& wanted) const {
    for (const auto& f : path_.folders) {
      if (auto found = source_file(f / wanted)) return std::filesystem::path(*found);
    }
    return std::nullopt;
  }

  // The file an #include names; where it is not found, an error, or none where `needed` is false.
  std::optional<std::filesystem::path> find(std::string_view rest, const std::string& where, int number,
                                            const std::optional<std::filesystem::path>& folder, bool needed) const {
    const char open = rest.empty() ? '\0' : rest.front();
    const char close = open == '"' ? '"' : '>';
    const std::size_t end = rest.find(close, 1);
    if ((open != '"' && open != '<') || end == std::string_view::npos || end == 1) {
      if (!needed) return std::nullopt;
      throw argument_error(
          parloop::detail::format("kernel_from_source '{}': {} line {}: '#include {}' is not #include \"file\" "
                                  "or #include <file>",
                                  kernel_, where, number, rest));
    }
    const std::filesystem::path wanted(rest.substr(1, end - 1));
    // An absolute name as it is; a quoted one beside the file that includes it, then in the
    // folders; an angled one in the folders.
    const std::optional<std::filesystem::path> first = wanted.is_absolute()    ? std::optional(wanted)
                                                       : open == '"' && folder ? std::optional(*folder / wanted)
                                                                               : std::nullopt;
    if (first) {
      if (auto found = source_file(*first)) return std::filesystem::path(*found);
    }
    if (!wanted.is_absolute()) {
      if (auto found = in_folders(wanted)) return *found;
    }
    if (!needed) return std::nullopt;
    std::string searched;
    for (const auto& f : path_.folders) searched += parloop::detail::format(" '{}'", f.string());
    throw argument_error(parloop::detail::format(
        "kernel_from_source '{}': {} line {} includes {}, which {}", kernel_, where, number, rest.substr(0, end + 1),
        path_.folders.empty() && !wanted.is_absolute()
            ? "no folder is named to find: give them, pl::include_path{\"folder\", ...}"
            : "is not found in the folders named:" + searched));
  }

  std::string read(const std::filesystem::path& file, const std::string& where, int number) const {
    std::optional<std::string> text = source_file_text(file);
    if (!text) {
      throw argument_error(parloop::detail::format("kernel_from_source '{}': {} line {}: cannot read '{}'", kernel_,
                                                   where, number, file.string()));
    }
    check_no_nul(kernel_, *text, parloop::detail::format("'{}'", file.string()));
    return std::move(*text);
  }

  std::string kernel_;
  const include_path& path_;
  std::set<std::string> once_;  // files that said #pragma once and were included
  macro_table macros_;          // as the preprocessor will have them, in the order of the text
};

// The kernel's source with its #include lines resolved in `path`.
inline std::string resolve_includes(const std::string& kernel, const std::string& source, const include_path& path) {
  check_no_nul(kernel, source, "the source");
  include_resolver r(kernel, path);
  return r.expand(source, "kernel '" + kernel + "'", std::nullopt, 0);
}

// The text of `file` with its #include lines resolved: beside it, then in `path`.
inline std::string resolve_file_includes(const std::string& kernel, const std::filesystem::path& file,
                                         const std::string& text, const include_path& path) {
  check_no_nul(kernel, text, parloop::detail::format("'{}'", file.string()));
  include_resolver r(kernel, path);
  return r.expand(text, file.string(), file.parent_path(), 0);
}

}  // namespace detail

// Registers `text` as the file `path` had when the program was built, for kernels' #include lines
// and OP2's kernel headers to find (what CMake's parloop_embed_sources generates calls of).
inline bool embed_source(const char* path, const char* text) {
  detail::embedded_files()[detail::embedded_key(path)] = text;
  return true;
}

}  // namespace parloop
