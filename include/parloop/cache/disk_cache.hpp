// SPDX-License-Identifier: MIT
// The per-user disk cache: one file per entry, <dir>/<backend>/<first two digits of the key>/
// <key>.plk. Readers never lock; a writer writes a temporary file in the same folder, flushes
// it and renames it into place, so no reader ever sees half an entry. A miss takes an advisory
// lock per key (waited for a little: correctness never depends on it) so that processes
// missing the same key at once compile it once. Any fault of an entry is a miss, never an
// error: the entry is written again. Past its size cap, the least recently used entries go.
// The cache only ever removes what it wrote, whatever folder it is pointed at: files of its own
// layout, named as it names them (an entry's magic checked too), never anything else there.
// Its files are cache/disk_files.hpp; what the cache tool does besides, cache/disk_maintenance.hpp.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/cache/disk_files.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

using disk_mode = parloop::cache_mode;

// A temporary file this old is a crashed writer's: a live one renames it within seconds.
inline constexpr std::chrono::hours stale_temporary_age{1};

class disk_cache {
 public:
  // A store walks the whole cache at least this often. This process's estimate of the cache's
  // size sees only its own stores, while other processes store into the same folder: each can
  // take the cache at most this many entries past its cap unseen. A program that compiles
  // hundreds of kernels walks a few times, not at each store.
  static constexpr std::uint64_t stores_between_walks = 64;

  // The cache `s` asks for (PARLOOP_CACHE, PARLOOP_CACHE_DIR, PARLOOP_CACHE_MAX_MB). A folder
  // that cannot be made safe for this user is said once, and the run goes on without it (null).
  static std::shared_ptr<disk_cache> open(const parloop::settings& s) {
    if (s.cache == disk_mode::off) return nullptr;
    if (s.cache_dir.empty()) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, "disk cache off: neither PARLOOP_CACHE_DIR, XDG_CACHE_HOME nor HOME is set");
      return nullptr;
    }
    return open(s.cache_dir, s.cache, s.cache_max_bytes);
  }

  // The cache in `dir`, or null (said once) where it is not safe: owned by another user, or
  // writable by group or others. A folder this user cannot write is used read-only.
  static std::shared_ptr<disk_cache> open(const std::filesystem::path& dir, disk_mode mode,
                                          std::uint64_t max_bytes = parloop::settings{}.cache_max_bytes) {
    std::error_code ec;
    if (mode == disk_mode::read_write && !std::filesystem::exists(dir, ec)) {
      std::filesystem::create_directories(dir, ec);
      ::chmod(dir.c_str(), 0700);
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(
          said, parloop::detail::format("disk cache off: '{}' is not a folder that can be made", dir.string()));
      return nullptr;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(
          said, parloop::detail::format(
                    "disk cache off: '{}' is {}; parloop only uses a cache folder of its own "
                    "user that no one else can write (chmod 700)",
                    dir.string(), st.st_uid != ::geteuid() ? "owned by another user" : "writable by group or others"));
      return nullptr;
    }
    if (mode == disk_mode::read_write && ::access(dir.c_str(), W_OK) != 0) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(
          said, parloop::detail::format("disk cache '{}' cannot be written: used read-only", dir.string()));
      mode = disk_mode::read_only;
    }
    return std::shared_ptr<disk_cache>(new disk_cache(dir, mode, max_bytes));
  }

  const std::filesystem::path& dir() const { return dir_; }
  disk_mode mode() const { return mode_; }
  std::uint64_t max_bytes() const { return max_bytes_; }

  // Where the entry of `key` lives for `backend`.
  std::filesystem::path path_of(backend_kind backend, const std::string& key) const {
    return dir_ / backend_name(backend) / key.substr(0, 2) / (key + ".plk");
  }

  // The record stored under `material`, or nothing: missing, unreadable, damaged or another
  // kernel's entry are all misses. A hit marks the entry used now (its modification time, which
  // the cache keeps itself: access times are often not kept).
  std::optional<kernel_record> load(const key_material& material, const std::string& key) const {
    const std::filesystem::path path = path_of(material.signature.backend, key);
    if (!private_levels(path.parent_path())) return std::nullopt;
    const auto bytes = parloop::detail::read_file(path);
    if (!bytes) return std::nullopt;
    decoded_entry entry = decode_entry(*bytes, &material);
    if (!entry.record) return std::nullopt;
    if (mode_ == disk_mode::read_write) ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
    return std::move(entry.record);
  }

  // Stores `record` under `material`; a failure to write is said once and otherwise ignored.
  // Returns whether it was written. The cache is walked (and pruned) only when this process's
  // estimate of its size passes the cap, and every stores_between_walks stores.
  bool store(const key_material& material, const std::string& key, const kernel_record& record) const {
    if (mode_ != disk_mode::read_write) return false;
    const std::filesystem::path path = path_of(material.signature.backend, key);
    const std::filesystem::path folder = path.parent_path();
    const std::string bytes = encode_entry(material, record);
    if (!make_private_folder(folder) || !private_levels(folder) ||
        parloop::detail::write_atomically(folder, path, bytes)) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(
          said, parloop::detail::format("disk cache: cannot write in '{}'; kernels are kept in memory only",
                                        folder.string()));
      return false;
    }
    // An entry written again over itself is counted twice: the estimate errs high, which only
    // walks sooner.
    const std::uint64_t estimate = estimated_bytes_.fetch_add(bytes.size()) + bytes.size();
    if (stores_since_walk_.fetch_add(1) + 1 >= stores_between_walks || estimate > max_bytes_) prune(max_bytes_);
    return true;
  }

  // Removes the least recently used entries until the cache holds at most `max` bytes,
  // temporary files a writer left more than stale_temporary_age ago (it crashed) and lock files
  // no process holds. Returns how many entries went. Entries another process uses meanwhile are
  // only misses for it. A file named as an entry without an entry's magic is not parloop's: it
  // stays, and its bytes are not the cache's.
  std::uint64_t prune(std::uint64_t max) const {
    disk_layout found = walk_layout(dir_, false);
    std::vector<entry_file>& files = found.entries;
    std::uint64_t total = 0;
    for (const entry_file& f : files) total += f.bytes;
    std::uint64_t removed = 0;
    if (total > max) {
      std::sort(files.begin(), files.end(), [](const entry_file& a, const entry_file& b) { return a.used < b.used; });
      for (const entry_file& f : files) {
        if (total <= max) break;
        std::error_code ec;
        if (detail::has_entry_magic(f.path) && std::filesystem::remove(f.path, ec)) ++removed;
        total -= f.bytes;
      }
    }
    const auto stale = std::filesystem::file_time_type::clock::now() - stale_temporary_age;
    for (const std::filesystem::path& t : found.temporaries) {
      std::error_code ec;
      if (std::filesystem::last_write_time(t, ec) < stale && !ec) std::filesystem::remove(t, ec);
    }
    for (const std::filesystem::path& l : found.locks) detail::remove_unheld_lock(l);
    // What this process's stores add is counted from here; a store another thread made during
    // the walk may be missed, until the next walk.
    estimated_bytes_ = total;
    stores_since_walk_ = 0;
    return removed;
  }

  // The lock of `key`, waiting at most `wait` for another process to release it; not held if
  // that did not happen (or the cache is read-only): the caller compiles anyway.
  key_lock lock(backend_kind backend, const std::string& key, std::chrono::milliseconds wait) const {
    if (mode_ != disk_mode::read_write) return {};
    const std::filesystem::path path = path_of(backend, key);
    if (!make_private_folder(path.parent_path())) return {};
    std::filesystem::path lock_path = path;
    lock_path.replace_extension(".lock");
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (true) {
      const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0) return {};
      if (!detail::take_lock(fd, deadline)) {
        ::close(fd);
        return {};
      }
      // A lock taken on a file that prune removed meanwhile (detail::remove_unheld_lock) is no
      // one's: the path is opened again, and names a new file.
      if (detail::names_open_file(lock_path, fd)) return key_lock(fd);
      ::close(fd);
      if (std::chrono::steady_clock::now() >= deadline) return {};
    }
  }

 private:
  disk_cache(std::filesystem::path dir, disk_mode mode, std::uint64_t max_bytes)
      : dir_(std::move(dir)), mode_(mode), max_bytes_(max_bytes) {}

  // Whether the levels parloop made below the cache folder -- `<backend>` and `<backend>/<hh>`,
  // `folder` being the latter -- are folders of this user that no one else can write, as the
  // cache folder is (open). A level that is not is said once, and its entries are neither read
  // nor written: another user could have put or swapped them (a 777 level under a 700 folder
  // too: the folder may have been tightened after they did). A level not there yet is no entry
  // to read.
  bool private_levels(const std::filesystem::path& folder) const {
    for (const std::filesystem::path& level : {folder.parent_path(), folder}) {
      struct stat st {};
      if (::lstat(level.c_str(), &st) != 0) return errno == ENOENT;
      if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        static std::atomic<bool> said{false};
        parloop::detail::warn_once(
            said, parloop::detail::format("disk cache: '{}' is {}; entries there are not used (chmod 700, or "
                                          "parloop-cache clear)",
                                          level.string(),
                                          !S_ISDIR(st.st_mode)       ? "not a folder"
                                          : st.st_uid != ::geteuid() ? "owned by another user"
                                                                     : "writable by group or others"));
        return false;
      }
    }
    return true;
  }

  static bool make_private_folder(const std::filesystem::path& folder) {
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) return true;
    // Only the levels made now are made private: one found otherwise is refused (private_levels),
    // never quietly repaired, since what it holds may not be parloop's.
    const bool parent_made = !std::filesystem::exists(folder.parent_path(), ec);
    std::filesystem::create_directories(folder, ec);
    if (ec) return false;
    ::chmod(folder.c_str(), 0700);
    if (parent_made) ::chmod(folder.parent_path().c_str(), 0700);
    return true;
  }

  std::filesystem::path dir_;
  disk_mode mode_;
  std::uint64_t max_bytes_;
  // The cache's bytes as of the last walk, plus this process's stores since; the first store
  // walks, as stores_since_walk_ starts at its limit.
  mutable std::atomic<std::uint64_t> estimated_bytes_{0};
  mutable std::atomic<std::uint64_t> stores_since_walk_{stores_between_walks};
};

}  // namespace parloop::cache

PARLOOP_COLD_END
