// SPDX-License-Identifier: MIT
// The per-user disk cache: one file per entry, <dir>/<backend>/<first two digits of the key>/
// <key>.plk. Readers never lock; a writer writes a temporary file in the same folder, flushes
// it and renames it into place, so no reader ever sees half an entry. A miss takes an advisory
// lock per key (waited for a little: correctness never depends on it) so that processes
// missing the same key at once compile it once. Any fault of an entry is a miss, never an
// error: the entry is written again. Past its size cap, the least recently used entries go.
// The cache only ever removes what it wrote, whatever folder it is pointed at: files of its own
// layout, named as it names them (an entry's magic checked too), never anything else there.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
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

#include <fmt/format.h>

#include "parloop/cache/disk_entry.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"

namespace parloop::cache {

enum class disk_mode : std::uint8_t { off, read_only, read_write };

namespace detail {

// The whole file, or nothing if it cannot be read (errno then says why).
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
      const int why = errno;
      ::close(fd);
      errno = why;
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fd);
  return bytes;
}

// Writes `bytes` to a new temporary file in `folder`, flushes it and renames it to `target`.
// Returns why it failed (leaving nothing behind), or no error.
inline std::error_code write_atomically(const std::filesystem::path& folder, const std::filesystem::path& target,
                                        const std::string& bytes) {
  std::string name = (folder / ".tmp-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return {errno, std::generic_category()};
  int failure = ::fchmod(fd, 0600) == 0 ? 0 : errno;
  for (std::size_t done = 0; failure == 0 && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) done += static_cast<std::size_t>(n);
    else failure = n < 0 ? errno : EIO;
  }
  if (failure == 0 && ::fsync(fd) != 0) failure = errno;
  if (::close(fd) != 0 && failure == 0) failure = errno;
  if (failure == 0 && ::rename(name.c_str(), target.c_str()) != 0) failure = errno;
  if (failure != 0) ::unlink(name.c_str());
  return {failure, std::generic_category()};
}

// The names parloop gives what it writes in a cache folder: <backend>/<hh>/ holding entries
// (<key>.plk), locks (<key>.lock) and writers' temporary files (mkstemp's .tmp-XXXXXX).
inline bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
inline bool backend_folder_name(std::string_view name) {
  // Every backend_kind: a backend added there is added here, or its entries are foreign.
  for (const backend_kind b : {backend_kind::host, backend_kind::opencl, backend_kind::cuda}) {
    if (name == backend_name(b)) return true;
  }
  return false;
}
inline bool shard_folder_name(std::string_view name) { return name.size() == 2 && lower_hex(name); }
// <32 hexadecimal digits of a key><suffix>
inline bool key_file_name(std::string_view name, std::string_view suffix) {
  return name.size() == 32 + suffix.size() && name.ends_with(suffix) && lower_hex(name.substr(0, 32));
}
inline bool temporary_file_name(std::string_view name) {
  return name.size() == 11 && name.starts_with(".tmp-") && std::all_of(name.begin() + 5, name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
         });
}

// Whether the file begins with an entry's magic (a symbolic link, or a file that cannot be
// read, does not).
inline bool has_entry_magic(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  std::array<unsigned char, entry_magic.size()> head{};
  std::size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return got == head.size() && head == entry_magic;
}

// Whether `path` names the file open as `fd` (it was not removed or replaced since it was opened).
inline bool names_open_file(const std::filesystem::path& path, int fd) {
  struct stat open_file {}, named {};
  return ::fstat(fd, &open_file) == 0 && ::lstat(path.c_str(), &named) == 0 && open_file.st_dev == named.st_dev &&
         open_file.st_ino == named.st_ino;
}

// Takes the flock of `fd`, trying until `deadline`.
inline bool take_lock(int fd, std::chrono::steady_clock::time_point deadline) {
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Removes the lock file at `path` if no process holds its lock; returns whether it did. Lock
// files are only ever removed here, by a process that holds the lock and while the path still
// names the file it holds. So a process that had opened the file before and takes its lock after
// the removal finds that the path no longer names its file (key_lock's taker checks) and opens
// the path again; and a second remover that had opened the same file finds the path gone or
// naming a newer file, which it leaves alone. No two processes ever both hold a key's lock.
inline bool remove_unheld_lock(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  const bool removed =
      ::flock(fd, LOCK_EX | LOCK_NB) == 0 && names_open_file(path, fd) && ::unlink(path.c_str()) == 0;
  ::close(fd);  // releases the lock, if taken
  return removed;
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
  // A store walks the whole cache at least this often. This process's estimate of the cache's
  // size sees only its own stores, while other processes store into the same folder: each can
  // take the cache at most this many entries past its cap unseen. A program that compiles
  // hundreds of kernels walks a few times, not at each store.
  static constexpr std::uint64_t stores_between_walks = 64;

  // The cache the environment asks for: PARLOOP_CACHE=on|off|read-only (on by default) in
  // $PARLOOP_CACHE_DIR, else $XDG_CACHE_HOME/parloop, else ~/.cache/parloop. A folder that
  // cannot be made safe for this user is said once, and the run goes on without it (null).
  static std::shared_ptr<disk_cache> from_environment() {
    const disk_mode mode = mode_from_environment();
    if (mode == disk_mode::off) return nullptr;
    std::filesystem::path dir;
    if (const char* d = parloop::detail::environment_value("PARLOOP_CACHE_DIR")) {
      dir = d;
    } else if (const char* x = parloop::detail::environment_value("XDG_CACHE_HOME")) {
      dir = std::filesystem::path(x) / "parloop";
    } else if (const char* h = parloop::detail::environment_value("HOME")) {
      dir = std::filesystem::path(h) / ".cache" / "parloop";
    } else {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, "disk cache off: neither PARLOOP_CACHE_DIR, XDG_CACHE_HOME nor HOME is set");
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
      parloop::detail::warn_once(said, fmt::format("disk cache off: '{}' is not a folder that can be made", dir.string()));
      return nullptr;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, fmt::format("disk cache off: '{}' is {}; parloop only uses a cache folder of its own "
                                          "user that no one else can write (chmod 700)",
                                          dir.string(), st.st_uid != ::geteuid() ? "owned by another user"
                                                                                 : "writable by group or others"));
      return nullptr;
    }
    if (mode == disk_mode::read_write && ::access(dir.c_str(), W_OK) != 0) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, fmt::format("disk cache '{}' cannot be written: used read-only", dir.string()));
      mode = disk_mode::read_only;
    }
    return std::shared_ptr<disk_cache>(new disk_cache(dir, mode, max_bytes_from_environment()));
  }

  // PARLOOP_CACHE_MAX_MB: the size the cache is kept under (least recently used entries go
  // first); 1024 MiB by default.
  static std::uint64_t max_bytes_from_environment() {
    const char* v = parloop::detail::environment_value("PARLOOP_CACHE_MAX_MB");
    if (v == nullptr) return std::uint64_t{1024} << 20;
    return mebibytes("PARLOOP_CACHE_MAX_MB", v, 1);
  }

  // `text`, a whole number of MiB from `least` to 2^40, in bytes. The bound keeps the bytes far
  // from wrapping around (2^44 MiB and more would, and then mean a few bytes); `what` names the
  // setting in the error.
  static std::uint64_t mebibytes(std::string_view what, std::string_view text, std::uint64_t least) {
    constexpr std::uint64_t most = std::uint64_t{1} << 40;
    std::uint64_t mb = 0;
    const char* end = text.data() + text.size();
    const auto [stop, failure] = std::from_chars(text.data(), end, mb);
    if (text.empty() || failure != std::errc{} || stop != end || mb < least || mb > most) {
      throw argument_error(fmt::format("{}='{}': expected a whole number of MiB, at least {} and at most {} (2^40)",
                                       what, text, least, most));
    }
    return mb << 20;
  }

  static disk_mode mode_from_environment() {
    return parloop::detail::choice_from_environment<disk_mode>(
        "PARLOOP_CACHE", disk_mode::read_write,
        {{"on", disk_mode::read_write, "kernels are kept on disk and loaded from there"},
         {"off", disk_mode::off, "no disk cache"},
         {"read-only", disk_mode::read_only, "entries are loaded, none written"}});
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
    const auto bytes = detail::read_file(path);
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
    if (!make_private_folder(folder) || !private_levels(folder) || detail::write_atomically(folder, path, bytes)) {
      static std::atomic<bool> said{false};
      parloop::detail::warn_once(said, fmt::format("disk cache: cannot write in '{}'; kernels are kept in memory only",
                                          folder.string()));
      return false;
    }
    // An entry written again over itself is counted twice: the estimate errs high, which only
    // walks sooner.
    const std::uint64_t estimate = estimated_bytes_.fetch_add(bytes.size()) + bytes.size();
    if (stores_since_walk_.fetch_add(1) + 1 >= stores_between_walks || estimate > max_bytes_) prune(max_bytes_);
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

  // Removes every entry, temporary file and lock no process holds (one held is a kernel being
  // compiled now), and the cache's folders left empty: the folder itself stays. Returns how many
  // entries went. A folder that holds anything else -- a file or folder parloop does not write,
  // a symbolic link, a file named as an entry without an entry's magic -- is refused, naming the
  // first such thing, and nothing is removed: it is not only a cache (PARLOOP_CACHE_DIR=$HOME).
  std::uint64_t clear() const {
    const layout found = walk(true);
    if (!found.unreadable.empty()) {
      throw error(fmt::format("clear: cannot read {}; nothing was removed", found.unreadable));
    }
    if (!found.foreign.empty()) {
      throw error(fmt::format("clear: {} is not parloop's, so '{}' is not only a cache; nothing was removed",
                              found.foreign, dir_.string()));
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
  std::uint64_t export_to(const std::filesystem::path& file) const {
    require_file_name("export", file);
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
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::absolute(file, ec);
    if (!ec) ec = detail::write_atomically(target.parent_path(), target, out);
    if (ec) throw error(fmt::format("export: cannot write '{}': {}", file.string(), ec.message()));
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
  import_result import_from(const std::filesystem::path& file) const {
    if (mode_ != disk_mode::read_write) throw error(fmt::format("cache '{}' is read-only", dir_.string()));
    require_file_name("import", file);
    const auto bytes = detail::read_file(file);
    if (!bytes) {
      throw error(fmt::format("import: cannot read '{}': {}", file.string(), std::generic_category().message(errno)));
    }
    const std::span<const unsigned char> all(*bytes);
    if (all.size() < detail::export_magic.size() ||
        !std::equal(detail::export_magic.begin(), detail::export_magic.end(), all.begin())) {
      throw error(fmt::format("'{}' is not a parloop cache export", file.string()));
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
        out.problem = fmt::format("{} bytes at the end, too few for entry {}'s size", left, n);
      } else if (size > left - 8) {
        out.problem = fmt::format("entry {}'s size says {} bytes, where {} are left", n, size, left - 8);
      } else if (!confirmed()) {
        out.problem = fmt::format("entry {}'s size ({} bytes) is neither its header's length nor where an entry starts",
                                  n, size);
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
      if (d.record && store(*d.material, key_of(*d.material), *d.record)) ++out.stored;
      else ++out.refused;
    }
    return out;
  }

  // Removes the least recently used entries until the cache holds at most `max` bytes,
  // temporary files a writer left more than stale_temporary_age ago (it crashed) and lock files
  // no process holds. Returns how many entries went. Entries another process uses meanwhile are
  // only misses for it. A file named as an entry without an entry's magic is not parloop's: it
  // stays, and its bytes are not the cache's.
  std::uint64_t prune(std::uint64_t max) const {
    layout found = walk(false);
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

  // A temporary file this old is a crashed writer's: a live one renames it within seconds.
  static constexpr std::chrono::hours stale_temporary_age{1};

  struct entry_file {
    std::filesystem::path path;
    std::uint64_t bytes;
    std::filesystem::file_time_type used;
  };

  // What the folder holds of the cache's layout (detail::backend_folder_name and the names
  // after it); nothing else is looked into.
  struct layout {
    std::vector<entry_file> entries;
    std::vector<std::filesystem::path> locks, temporaries;
    std::vector<std::filesystem::path> folders;  // each shard folder before its backend's
    std::string foreign;                         // the first thing of another's, quoted, and what it is
    std::string unreadable;                      // the first folder that could not be read, and why
  };

  // Walks the layout. With `check_entries`, a file named as an entry without an entry's magic is
  // foreign (clear reads every entry's head; prune only those it removes).
  layout walk(bool check_entries) const {
    using ft = std::filesystem::file_type;
    layout out;
    const auto foreign = [&out](const std::filesystem::path& p, std::string_view what) {
      if (out.foreign.empty()) out.foreign = fmt::format("'{}' ({})", p.string(), what);
    };
    const auto other = [&foreign](const std::filesystem::path& p, ft type) {
      foreign(p, type == ft::directory ? "a folder parloop does not make"
                 : type == ft::symlink ? "a symbolic link"
                                       : "a file parloop does not write");
    };
    for (const auto& [backend, backend_type] : children(dir_, out.unreadable)) {
      if (backend_type != ft::directory || !detail::backend_folder_name(backend.filename().string())) {
        other(backend, backend_type);
        continue;
      }
      for (const auto& [shard, shard_type] : children(backend, out.unreadable)) {
        if (shard_type != ft::directory || !detail::shard_folder_name(shard.filename().string())) {
          other(shard, shard_type);
          continue;
        }
        for (const auto& [file, type] : children(shard, out.unreadable)) {
          const std::string name = file.filename().string();
          std::error_code e1, e2;
          if (type != ft::regular) {
            other(file, type);
          } else if (detail::key_file_name(name, ".plk")) {
            if (check_entries && !detail::has_entry_magic(file)) {
              foreign(file, "named as an entry, without an entry's magic");
              continue;
            }
            const auto bytes = std::filesystem::file_size(file, e1);
            const auto used = std::filesystem::last_write_time(file, e2);
            if (!e1 && !e2) out.entries.push_back({file, bytes, used});
          } else if (detail::key_file_name(name, ".lock") && std::filesystem::file_size(file, e1) == 0 && !e1) {
            out.locks.push_back(file);  // parloop's lock files stay empty
          } else if (detail::temporary_file_name(name)) {
            out.temporaries.push_back(file);
          } else {
            other(file, type);
          }
        }
        out.folders.push_back(shard);
      }
      out.folders.push_back(backend);
    }
    return out;
  }

  // The children of `folder`, with their types (a symbolic link is one, never followed); the
  // first folder that cannot be read is kept in `unreadable`.
  static std::vector<std::pair<std::filesystem::path, std::filesystem::file_type>> children(
      const std::filesystem::path& folder, std::string& unreadable) {
    std::vector<std::pair<std::filesystem::path, std::filesystem::file_type>> out;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(folder, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec)) {
      std::error_code e;
      const std::filesystem::file_type type = it->symlink_status(e).type();
      if (!e) out.emplace_back(it->path(), type);
    }
    // A folder removed meanwhile (by another clear or prune) holds nothing to read.
    if (ec && ec != std::errc::no_such_file_or_directory && unreadable.empty()) {
      unreadable = fmt::format("'{}': {}", folder.string(), ec.message());
    }
    return out;
  }

  // Every entry of the layout, with its size and last use.
  std::vector<entry_file> entry_files() const { return walk(false).entries; }

  // An empty name is no file (std::filesystem throws its own error for it).
  static void require_file_name(std::string_view command, const std::filesystem::path& file) {
    if (file.empty()) throw error(fmt::format("{}: the file name is empty", command));
  }

  // Whether the levels parloop made below the cache folder -- `<backend>` and `<backend>/<hh>`,
  // `folder` being the latter -- are folders of this user that no one else can write, as the
  // cache folder is (open). A level that is not is said once, and its entries are neither read
  // nor written: another user could have put or swapped them (a 777 level under a 700 folder was
  // once used as it was). A level not there yet is no entry to read.
  bool private_levels(const std::filesystem::path& folder) const {
    for (const std::filesystem::path& level : {folder.parent_path(), folder}) {
      struct stat st {};
      if (::lstat(level.c_str(), &st) != 0) return errno == ENOENT;
      if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        static std::atomic<bool> said{false};
        parloop::detail::warn_once(said, fmt::format("disk cache: '{}' is {}; entries there are not used (chmod 700, or "
                                            "parloop-cache clear)",
                                            level.string(),
                                            !S_ISDIR(st.st_mode)          ? "not a folder"
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
