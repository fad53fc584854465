// SPDX-License-Identifier: MIT
// PARLOOP_DUMP_SOURCE (settings::dump_source): every generated source is also written to a
// folder, as <kernel name>-<hash of the text>.<cl|cu>, and a compile error names that file.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

#include <xxhash.h>

#include "parloop/config.hpp"
#include "parloop/codegen/generate.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::detail {

// Writes `text` as `dir`/`file` next to the final name, then renames: a reader never sees half
// a file. Returns the file's path.
inline std::string write_whole(const std::filesystem::path& dir, const std::string& file, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path target = dir / file;
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path temporary =
      dir / parloop::detail::format("{}.tmp.{}.{}", file, static_cast<long>(::getpid()), counter.fetch_add(1));
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, ec);
      throw error(parloop::detail::format("PARLOOP_DUMP_SOURCE: cannot write '{}'", target.string()));
    }
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw error(parloop::detail::format("PARLOOP_DUMP_SOURCE: cannot write '{}'", target.string()));
  }
  return target.string();
}

// Writes `source` into `dir` and records where in source.path. Dumping is an aid, not the loop's
// work: a folder that cannot be written is said once, and the loops run.
inline void dump_source(codegen::generated_source& source, const std::filesystem::path& dir) {
  const std::string file =
      parloop::detail::format("{}-{:016x}.{}", source.kernel, XXH3_64bits(source.text.data(), source.text.size()),
                              codegen::extension_of(source.dialect));
  try {
    source.path = write_whole(dir, file, source.text);
  } catch (const error& e) {
    static std::atomic<bool> said{false};
    warn_once(said, parloop::detail::format("{}; generated sources are not dumped", e.what()));
  }
}

}  // namespace parloop::detail

PARLOOP_COLD_END
