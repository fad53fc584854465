// SPDX-License-Identifier: MIT
// The disk cache's files (cache/disk_cache.hpp): the names of its layout's folders, entries,
// locks and temporary files, the per-key lock, and the walk over the layout that finds them --
// and anything in the folder that is not the cache's. Files are read and written whole
// (parloop/whole_file.hpp).
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

#include "parloop/config.hpp"
#include "parloop/cache/disk_entry.hpp"
#include "parloop/core/backend_kind.hpp"
#include "parloop/core/environment.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/whole_file.hpp"

PARLOOP_COLD_BEGIN

namespace parloop::cache {

namespace detail {

// The names parloop gives what it writes in a cache folder: <backend>/<hh>/ holding entries
// (<key>.plk), locks (<key>.lock) and writers' temporary files (mkstemp's .tmp-XXXXXX).
inline bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
inline bool backend_folder_name(std::string_view name) {
  // Every backend_kind: a backend added there is added here, or its entries are foreign.
  for (const backend_kind b : {backend_kind::host, backend_kind::opencl, backend_kind::cuda, backend_kind::threads}) {
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
  struct stat open_file {
  }, named{};
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
  const bool removed = ::flock(fd, LOCK_EX | LOCK_NB) == 0 && names_open_file(path, fd) && ::unlink(path.c_str()) == 0;
  ::close(fd);  // releases the lock, if taken
  return removed;
}

// The children of `folder`, with their types (a symbolic link is one, never followed); the
// first folder that cannot be read is kept in `unreadable`.
inline std::vector<std::pair<std::filesystem::path, std::filesystem::file_type>> children(
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
    unreadable = parloop::detail::format("'{}': {}", folder.string(), ec.message());
  }
  return out;
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

struct entry_file {
  std::filesystem::path path;
  std::uint64_t bytes;
  std::filesystem::file_time_type used;
};

// What the folder holds of the cache's layout (detail::backend_folder_name and the names
// after it); nothing else is looked into.
struct disk_layout {
  std::vector<entry_file> entries;
  std::vector<std::filesystem::path> locks, temporaries;
  std::vector<std::filesystem::path> folders;  // each shard folder before its backend's
  std::string foreign;                         // the first thing of another's, quoted, and what it is
  std::string unreadable;                      // the first folder that could not be read, and why
};

// Walks the layout of the cache in `dir`. With `check_entries`, a file named as an entry without an entry's magic is
// foreign (clear reads every entry's head; prune only those it removes).
inline disk_layout walk_layout(const std::filesystem::path& dir, bool check_entries) {
  using ft = std::filesystem::file_type;
  disk_layout out;
  const auto foreign = [&out](const std::filesystem::path& p, std::string_view what) {
    if (out.foreign.empty()) out.foreign = parloop::detail::format("'{}' ({})", p.string(), what);
  };
  const auto other = [&foreign](const std::filesystem::path& p, ft type) {
    foreign(p, type == ft::directory ? "a folder parloop does not make"
               : type == ft::symlink ? "a symbolic link"
                                     : "a file parloop does not write");
  };
  for (const auto& [backend, backend_type] : detail::children(dir, out.unreadable)) {
    if (backend_type != ft::directory || !detail::backend_folder_name(backend.filename().string())) {
      other(backend, backend_type);
      continue;
    }
    for (const auto& [shard, shard_type] : detail::children(backend, out.unreadable)) {
      if (shard_type != ft::directory || !detail::shard_folder_name(shard.filename().string())) {
        other(shard, shard_type);
        continue;
      }
      for (const auto& [file, type] : detail::children(shard, out.unreadable)) {
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

}  // namespace parloop::cache

PARLOOP_COLD_END
