// SPDX-License-Identifier: MIT
// Whole files: read in one go, and written atomically -- into a temporary file beside the target,
// flushed, then renamed over it -- so that a reader, another process or a crash never sees half a
// file. The disk cache's entries and OP2's output files are written so.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace parloop::detail {

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

// Writes `bytes` to a new temporary file in `folder` (named .tmp-XXXXXX, which the
// disk cache's walk knows as a writer's), flushes it and renames it to `target`, a file
// of `mode` (the cache's are this user's alone). Returns why it failed (leaving nothing behind),
// or no error.
inline std::error_code write_atomically(const std::filesystem::path& folder, const std::filesystem::path& target,
                                        const std::string& bytes, mode_t mode = 0600) {
  std::string name = (folder / ".tmp-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return {errno, std::generic_category()};
  int failure = ::fchmod(fd, mode) == 0 ? 0 : errno;
  for (std::size_t done = 0; failure == 0 && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0)
      done += static_cast<std::size_t>(n);
    else
      failure = n < 0 ? errno : EIO;
  }
  if (failure == 0 && ::fsync(fd) != 0) failure = errno;
  if (::close(fd) != 0 && failure == 0) failure = errno;
  if (failure == 0 && ::rename(name.c_str(), target.c_str()) != 0) failure = errno;
  if (failure != 0) ::unlink(name.c_str());
  return {failure, std::generic_category()};
}

// Flushes a file written by another writer (HDF5's) to the disk before it is renamed into place,
// so that the name never points at data a crash would lose. Returns why it failed, or no error.
inline std::error_code sync_to_disk(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {errno, std::generic_category()};
  const int failure = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return {failure, std::generic_category()};
}

}  // namespace parloop::detail
