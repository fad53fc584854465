// SPDX-License-Identifier: MIT
// The per-user disk cache: one file per entry, <dir>/<backend>/<first two digits of the key>/
// <key>.plk. Readers never lock; a writer writes a temporary file in the same folder, flushes
// it and renames it into place, so no reader ever sees half an entry. A miss takes an advisory
// lock per key (waited for a little: correctness never depends on it) so that processes
// missing the same key at once compile it once. Any fault of an entry is a miss, never an
// error: the entry is written again. Past its size cap, the least recently used entries go.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "parloop/cache/disk_entry.hpp"
#include "parloop/error.hpp"

namespace parloop::cache {

enum class disk_mode : std::uint8_t { off, read_only, read_write };

namespace detail {

// Says a cache problem once per process and kind: a run goes on without the disk cache.
inline void warn_once(std::atomic<bool>& said, const std::string& message) {
  if (!said.exchange(true)) std::fprintf(stderr, "parloop: %s\n", message.c_str());
}

inline const char* environment(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

// The whole file, or nothing if it cannot be read.
inline std::optional<std::vector<unsigned char>> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<unsigned char> bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) bytes.reserve(static_cast<std::size_t>(st.st_size));
  unsigned char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fd);
  return bytes;
}

// Writes `bytes` to a new temporary file in `folder`, flushes it and renames it to `target`.
// Returns false (leaving nothing behind) on any failure.
inline bool write_atomically(const std::filesystem::path& folder, const std::filesystem::path& target,
                             const std::string& bytes) {
  std::string name = (folder / ".tmp-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return false;
  bool ok = ::fchmod(fd, 0600) == 0;
  for (std::size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(name.c_str(), target.c_str()) == 0;
  if (!ok) ::unlink(name.c_str());
  return ok;
}

}  // namespace detail

// An advisory lock on one key, held while the holder compiles it; released when destroyed.
class key_lock {
 public:
  key_lock() = default;
  explicit key_lock(int fd) : fd_(fd) {}
  key_lock(key_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  key_lock& operator=(key_lock&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  key_lock(const key_lock&) = delete;
  key_lock& operator=(const key_lock&) = delete;
  ~key_lock() {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
  }
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

class disk_cache {
 public:
  // The cache the environment asks for: PARLOOP_CACHE=on|off|read-only (on by default) in
  // $PARLOOP_CACHE_DIR, else $XDG_CACHE_HOME/parloop, else ~/.cache/parloop. A folder that
  // cannot be made safe for this user is said once, and the run goes on without it (null).
  static std::shared_ptr<disk_cache> from_environment() {
    const disk_mode mode = mode_from_environment();
    if (mode == disk_mode::off) return nullptr;
    std::filesystem::path dir;
    if (const char* d = detail::environment("PARLOOP_CACHE_DIR")) {
      dir = d;
    } else if (const char* x = detail::environment("XDG_CACHE_HOME")) {
      dir = std::filesystem::path(x) / "parloop";
    } else if (const char* h = detail::environment("HOME")) {
      dir = std::filesystem::path(h) / ".cache" / "parloop";
    } else {
      static std::atomic<bool> said{false};
      detail::warn_once(said, "disk cache off: neither PARLOOP_CACHE_DIR, XDG_CACHE_HOME nor HOME is set");
      return nullptr;
    }
    return open(dir, mode);
  }

  // The cache in `dir`, or null (said once) where it is not safe: owned by another user, or
  // writable by group or others. A folder this user cannot write is used read-only.
  static std::shared_ptr<disk_cache> open(const std::filesystem::path& dir, disk_mode mode) {
    std::error_code ec;
    if (mode == disk_mode::read_write && !std::filesystem::exists(dir, ec)) {
      std::filesystem::create_directories(dir, ec);
      ::chmod(dir.c_str(), 0700);
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      static std::atomic<bool> said{false};
      detail::warn_once(said, fmt::format("disk cache off: '{}' is not a folder that can be made", dir.string()));
      return nullptr;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      static std::atomic<bool> said{false};
      detail::warn_once(said, fmt::format("disk cache off: '{}' is {}; parloop only uses a cache folder of its own "
                                          "user that no one else can write (chmod 700)",
                                          dir.string(), st.st_uid != ::geteuid() ? "owned by another user"
                                                                                 : "writable by group or others"));
      return nullptr;
    }
    if (mode == disk_mode::read_write && ::access(dir.c_str(), W_OK) != 0) {
      static std::atomic<bool> said{false};
      detail::warn_once(said, fmt::format("disk cache '{}' cannot be written: used read-only", dir.string()));
      mode = disk_mode::read_only;
    }
    return std::shared_ptr<disk_cache>(new disk_cache(dir, mode, max_bytes_from_environment()));
  }

  // PARLOOP_CACHE_MAX_MB: the size the cache is kept under (least recently used entries go
  // first); 1024 MiB by default.
  static std::uint64_t max_bytes_from_environment() {
    const char* v = detail::environment("PARLOOP_CACHE_MAX_MB");
    if (v == nullptr) return std::uint64_t{1024} << 20;
    char* end = nullptr;
    errno = 0;
    const unsigned long long mb = std::strtoull(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || mb == 0 || mb > (std::uint64_t{1} << 40) || *v == '-') {
      throw argument_error(fmt::format("PARLOOP_CACHE_MAX_MB='{}': expected a whole number of MiB, at least 1", v));
    }
    return static_cast<std::uint64_t>(mb) << 20;
  }

  static disk_mode mode_from_environment() {
    const char* v = detail::environment("PARLOOP_CACHE");
    if (v == nullptr || std::strcmp(v, "on") == 0) return disk_mode::read_write;
    if (std::strcmp(v, "off") == 0) return disk_mode::off;
    if (std::strcmp(v, "read-only") == 0) return disk_mode::read_only;
    throw argument_error(fmt::format("PARLOOP_CACHE='{}': expected on, off or read-only", v));
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
    const auto bytes = detail::read_file(path);
    if (!bytes) return std::nullopt;
    decoded_entry entry = decode_entry(*bytes, &material);
    if (!entry.record) return std::nullopt;
    if (mode_ == disk_mode::read_write) ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
    return std::move(entry.record);
  }

  // Stores `record` under `material`; a failure to write is said once and otherwise ignored.
  // Returns whether it was written.
  bool store(const key_material& material, const std::string& key, const kernel_record& record) const {
    if (mode_ != disk_mode::read_write) return false;
    const std::filesystem::path path = path_of(material.signature.backend, key);
    const std::filesystem::path folder = path.parent_path();
    if (!make_private_folder(folder) || !detail::write_atomically(folder, path, encode_entry(material, record))) {
      static std::atomic<bool> said{false};
      detail::warn_once(said, fmt::format("disk cache: cannot write in '{}'; kernels are kept in memory only",
                                          folder.string()));
      return false;
    }
    prune(max_bytes_);
    return true;
  }

  // What the cache holds: its entries and their bytes.
  struct usage {
    std::uint64_t entries = 0;
    std::uint64_t bytes = 0;
  };

  usage measure() const {
    usage u;
    for (const entry_file& f : entry_files()) {
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
  std::vector<entry_info> entries() const {
    std::vector<entry_info> out;
    for (const entry_file& f : entry_files()) {
      entry_info info{f.path, f.bytes, f.used, {}, {}, {}, {}};
      const auto bytes = detail::read_file(f.path);
      if (!bytes) {
        info.problem = "cannot be read";
      } else {
        const decoded_entry d = decode_entry(*bytes);
        info.problem = d.problem;
        if (d.material) {
          info.backend = backend_name(d.material->signature.backend);
          info.device = d.material->signature.device;
          if (d.problem.empty() && f.path != path_of(d.material->signature.backend, key_of(*d.material))) {
            info.problem = "filed under another key than its material's";
          }
        }
        if (d.record) info.kernel = d.record->entry;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

  // Removes every entry (and lock and temporary file): the folder stays.
  std::uint64_t clear() const {
    std::uint64_t removed = 0;
    std::error_code ec;
    for (const auto& sub : std::filesystem::directory_iterator(dir_, ec)) {
      std::error_code e;
      if (sub.is_directory(e)) removed += static_cast<std::uint64_t>(std::filesystem::remove_all(sub.path(), e));
    }
    return removed;
  }

  // Writes every good entry into one file (an export), to be imported into the caches of
  // machines with the same devices. Returns how many it holds.
  std::uint64_t export_to(const std::filesystem::path& file) const {
    std::string out(detail::export_magic.begin(), detail::export_magic.end());
    std::uint64_t count = 0;
    for (const entry_info& e : entries()) {
      if (!e.problem.empty()) continue;
      const auto bytes = detail::read_file(e.path);
      if (!bytes) continue;
      detail::put_le(out, bytes->size(), 8);
      out.append(bytes->begin(), bytes->end());
      ++count;
    }
    std::filesystem::path folder = std::filesystem::absolute(file).parent_path();
    if (!detail::write_atomically(folder, file, out)) {
      throw error(fmt::format("parloop-cache: cannot write '{}'", file.string()));
    }
    return count;
  }

  // Stores the entries of an export, each checked again (and filed under its own key); returns
  // how many were stored and how many refused.
  std::pair<std::uint64_t, std::uint64_t> import_from(const std::filesystem::path& file) const {
    if (mode_ != disk_mode::read_write) throw error(fmt::format("cache '{}' is read-only", dir_.string()));
    const auto bytes = detail::read_file(file);
    const std::span<const unsigned char> all = bytes ? std::span<const unsigned char>(*bytes) : std::span<const unsigned char>();
    if (!bytes || all.size() < detail::export_magic.size() ||
        !std::equal(detail::export_magic.begin(), detail::export_magic.end(), all.begin())) {
      throw error(fmt::format("'{}' is not a parloop cache export", file.string()));
    }
    std::uint64_t stored = 0, refused = 0;
    std::size_t at = detail::export_magic.size();
    while (at < all.size()) {
      if (all.size() - at < 8) {
        ++refused;
        break;
      }
      const std::uint64_t size = detail::get_le(all, at, 8);
      at += 8;
      if (size > all.size() - at) {
        ++refused;
        break;
      }
      const decoded_entry d = decode_entry(all.subspan(at, static_cast<std::size_t>(size)));
      at += static_cast<std::size_t>(size);
      if (!d.record) {
        ++refused;
        continue;
      }
      if (store(*d.material, key_of(*d.material), *d.record)) ++stored;
      else ++refused;
    }
    return {stored, refused};
  }

  // Removes the least recently used entries until the cache holds at most `max` bytes, and
  // temporary files a writer left more than an hour ago (it crashed). Returns how many entries
  // went. Entries another process uses meanwhile are only misses for it.
  std::uint64_t prune(std::uint64_t max) const {
    std::vector<entry_file> files = entry_files();
    std::uint64_t total = 0;
    for (const entry_file& f : files) total += f.bytes;
    std::uint64_t removed = 0;
    if (total > max) {
      std::sort(files.begin(), files.end(), [](const entry_file& a, const entry_file& b) { return a.used < b.used; });
      for (const entry_file& f : files) {
        if (total <= max) break;
        std::error_code ec;
        if (std::filesystem::remove(f.path, ec)) ++removed;
        total -= f.bytes;
      }
    }
    remove_stale_temporaries();
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
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return {};
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() >= deadline) {
        ::close(fd);
        return {};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return key_lock(fd);
  }

 private:
  disk_cache(std::filesystem::path dir, disk_mode mode, std::uint64_t max_bytes)
      : dir_(std::move(dir)), mode_(mode), max_bytes_(max_bytes) {}

  struct entry_file {
    std::filesystem::path path;
    std::uint64_t bytes;
    std::filesystem::file_time_type used;
  };

  // Every entry under the folder (<backend>/<hh>/<key>.plk), with its size and last use.
  std::vector<entry_file> entry_files() const {
    std::vector<entry_file> out;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec)) {
      if (it->path().extension() != ".plk") continue;
      std::error_code e1, e2;
      const auto bytes = it->file_size(e1);
      const auto used = it->last_write_time(e2);
      if (!e1 && !e2) out.push_back({it->path(), bytes, used});
    }
    return out;
  }

  void remove_stale_temporaries() const {
    const auto hour_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec)) {
      if (it->path().filename().string().rfind(".tmp-", 0) != 0) continue;
      std::error_code e;
      if (it->last_write_time(e) < hour_ago && !e) std::filesystem::remove(it->path(), e);
    }
  }

  static bool make_private_folder(const std::filesystem::path& folder) {
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) return true;
    std::filesystem::create_directories(folder, ec);
    if (ec) return false;
    ::chmod(folder.c_str(), 0700);
    ::chmod(folder.parent_path().c_str(), 0700);
    return true;
  }

  std::filesystem::path dir_;
  disk_mode mode_;
  std::uint64_t max_bytes_;
};

}  // namespace parloop::cache
