// SPDX-License-Identifier: MIT
// What the cache tool (parloop-cache) does to a disk cache besides a loop's load and store: its
// usage, its entries read and checked, clear, export and import. A program's loops never call
// these; they go through the same files and checks as disk_cache's own.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "parloop/config.hpp"
#include "parloop/cache/disk_cache.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/disk_files.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

namespace detail {

// An empty name is no file (std::filesystem throws its own error for it).
inline void require_file_name(std::string_view command, const std::filesystem::path& file) {
  if (file.empty()) throw error(parloop::detail::format("{}: the file name is empty", command));
}

}  // namespace detail

// What the cache holds: its entries and their bytes.
struct usage {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};

inline usage measure(const disk_cache& disk) {
  usage u;
  for (const entry_file& f : walk_layout(disk.dir(), false).entries) {
    ++u.entries;
    u.bytes += f.bytes;
  }
  return u;
}

// One entry as the cache tool shows it.
struct entry_info {
  std::filesystem::path path;
  std::uint64_t bytes = 0;
  std::filesystem::file_time_type used;
  std::string kernel;   // the entry point
  std::string backend;  // as in the folder's name
  std::string device;
  std::string problem;  // empty for a good entry
};

// Every entry, read and checked: its payload whole, and filed under the key of its material.
inline std::vector<entry_info> entries(const disk_cache& disk) {
  std::vector<entry_info> out;
  for (const entry_file& f : walk_layout(disk.dir(), false).entries) {
    entry_info info{f.path, f.bytes, f.used, {}, {}, {}, {}};
    const auto bytes = parloop::detail::read_file(f.path);
    if (!bytes) {
      info.problem = "cannot be read";
    } else {
      const decoded_entry d = decode_entry(*bytes);
      info.problem = d.problem;
      if (d.material) {
        info.backend = backend_name(d.material->signature.backend);
        info.device = d.material->signature.device;
        if (d.problem.empty() && f.path != disk.path_of(d.material->signature.backend, key_of(*d.material))) {
          info.problem = "filed under another key than its material's";
        }
      }
      if (d.record) info.kernel = d.record->entry;
    }
    out.push_back(std::move(info));
  }
  return out;
}

// Removes every entry, temporary file and lock no process holds (one held is a kernel being
// compiled now), and the cache's folders left empty: the folder itself stays. Returns how many
// entries went. A folder that holds anything else -- a file or folder parloop does not write,
// a symbolic link, a file named as an entry without an entry's magic -- is refused, naming the
// first such thing, and nothing is removed: it is not only a cache (PARLOOP_CACHE_DIR=$HOME).
inline std::uint64_t clear(const disk_cache& disk) {
  const disk_layout found = walk_layout(disk.dir(), true);
  if (!found.unreadable.empty()) {
    throw error(parloop::detail::format("clear: cannot read {}; nothing was removed", found.unreadable));
  }
  if (!found.foreign.empty()) {
    throw error(parloop::detail::format("clear: {} is not parloop's, so '{}' is not only a cache; nothing was removed",
                                        found.foreign, disk.dir().string()));
  }
  std::uint64_t removed = 0;
  std::error_code ec;
  for (const entry_file& f : found.entries) removed += std::filesystem::remove(f.path, ec) ? 1 : 0;
  for (const std::filesystem::path& t : found.temporaries) std::filesystem::remove(t, ec);
  for (const std::filesystem::path& l : found.locks) detail::remove_unheld_lock(l);
  // rmdir removes only an empty folder: one a writer used meanwhile stays.
  for (const std::filesystem::path& f : found.folders) ::rmdir(f.c_str());
  return removed;
}

// Writes every good entry into one file (an export), to be imported into the caches of
// machines with the same devices. Returns how many it holds.
inline std::uint64_t export_to(const disk_cache& disk, const std::filesystem::path& file) {
  detail::require_file_name("export", file);
  std::string out(detail::export_magic.begin(), detail::export_magic.end());
  std::uint64_t count = 0;
  for (const entry_info& e : entries(disk)) {
    if (!e.problem.empty()) continue;
    const auto bytes = parloop::detail::read_file(e.path);
    if (!bytes) continue;
    detail::put_le(out, bytes->size(), 8);
    out.append(bytes->begin(), bytes->end());
    ++count;
  }
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::absolute(file, ec);
  if (!ec) ec = parloop::detail::write_atomically(target.parent_path(), target, out);
  if (ec) throw error(parloop::detail::format("export: cannot write '{}': {}", file.string(), ec.message()));
  return count;
}

// What an import did with the entries of an export.
struct import_result {
  std::uint64_t stored = 0;
  std::uint64_t refused = 0;   // read, and damaged or not stored
  std::uint64_t not_read = 0;  // entries (counted by their magic) after the point it read to
  std::string problem;         // why it stopped before the end, or empty
  friend bool operator==(const import_result&, const import_result&) = default;
};

// Stores the entries of an export, each checked again (and filed under its own key). An
// export is a chain of sizes, and each size is confirmed by the entry's own header (its
// length) or by the next entry's magic where the size says it starts: then a damaged entry is
// refused and the next read as before. A size that does not fit the file, or that neither
// confirms, means where the next entries start is unknown: the import stops there and counts
// the entries it did not read by their magic, rather than dropping them unsaid.
inline import_result import_from(const disk_cache& disk, const std::filesystem::path& file) {
  if (disk.mode() != disk_mode::read_write)
    throw error(parloop::detail::format("cache '{}' is read-only", disk.dir().string()));
  detail::require_file_name("import", file);
  const auto bytes = parloop::detail::read_file(file);
  if (!bytes) {
    throw error(
        parloop::detail::format("import: cannot read '{}': {}", file.string(), std::generic_category().message(errno)));
  }
  const std::span<const unsigned char> all(*bytes);
  if (all.size() < detail::export_magic.size() ||
      !std::equal(detail::export_magic.begin(), detail::export_magic.end(), all.begin())) {
    throw error(parloop::detail::format("'{}' is not a parloop cache export", file.string()));
  }
  const auto& magic = detail::entry_magic;
  const auto magic_at = [&](std::size_t at) {
    return all.size() - at >= magic.size() &&
           std::equal(magic.begin(), magic.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
  };
  import_result out;
  std::size_t at = detail::export_magic.size();
  for (std::uint64_t n = 1; at < all.size(); ++n) {
    const std::size_t left = all.size() - at;
    const std::uint64_t size = left < 8 ? 0 : detail::get_le(all, at, 8);
    const std::size_t next = at + 8 + static_cast<std::size_t>(size);
    // Only for a size that fits the file.
    const auto confirmed = [&] {
      const bool own_length = size >= detail::entry_header_size && magic_at(at + 8) &&
                              detail::get_le(all, at + 8 + 12, 8) == size - detail::entry_header_size;
      return own_length || next == all.size() || (all.size() - next >= 8 && magic_at(next + 8));
    };
    if (left < 8) {
      out.problem = parloop::detail::format("{} bytes at the end, too few for entry {}'s size", left, n);
    } else if (size > left - 8) {
      out.problem = parloop::detail::format("entry {}'s size says {} bytes, where {} are left", n, size, left - 8);
    } else if (!confirmed()) {
      out.problem = parloop::detail::format(
          "entry {}'s size ({} bytes) is neither its header's length nor where an entry starts", n, size);
    }
    if (!out.problem.empty()) {
      for (auto it = all.begin() + static_cast<std::ptrdiff_t>(at);
           (it = std::search(it, all.end(), magic.begin(), magic.end())) != all.end(); ++it) {
        ++out.not_read;
      }
      break;
    }
    const decoded_entry d = decode_entry(all.subspan(at + 8, static_cast<std::size_t>(size)));
    at = next;
    if (d.record && disk.store(*d.material, key_of(*d.material), *d.record))
      ++out.stored;
    else
      ++out.refused;
  }
  return out;
}

}  // namespace parloop::cache

PARLOOP_COLD_END
