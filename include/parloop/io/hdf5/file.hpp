// SPDX-License-Identifier: MIT
// An HDF5 file as parloop reads and writes it: opened to read, to add to, or made new. A file made
// new is written under a temporary name beside its own and, when it is closed whole, is flushed
// to the disk and takes its name, so that a program stopped half way (an exception, a crash, a
// power cut) leaves no half-written file under that name.
#pragma once

#include <hdf5.h>
#ifdef __linux__
#include <fcntl.h>
#endif

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/whole_file.hpp"
#include "parloop/io/hdf5/handle.hpp"

namespace parloop {

// A file parloop was asked to read is missing, damaged or not what was asked for, or a file it
// writes could not be written. what() names the file, the dataset and what was expected.
class file_error : public error {
 public:
  using error::error;
};

namespace hdf5 {

class File {
 public:
  // An existing file, to read.
  static File open(std::string path) { return File(std::move(path), mode::read); }
  // A file to add datasets to, made if it is not there.
  static File append(std::string path) { return File(std::move(path), mode::append); }
  // A new file, replacing one of that name when it is closed whole.
  static File create(std::string path) { return File(std::move(path), mode::create); }
  // A new file made at `path` by every rank of a communicator at once, through `access` (HDF5's
  // MPI-IO file access list): closed by all of them, its ranks then name it (checkpoint over MPI,
  // io/hdf5_mpi.hpp); removed if an exception is on its way.
  static File create_collective(std::string path, hid_t access) {
    return File(std::move(path), mode::collective, access);
  }

  File(File&&) noexcept = default;
  File& operator=(File&& other) noexcept {
    if (this != &other) {
      finish();
      id_ = std::move(other.id_);
      path_ = std::move(other.path_);
      writing_ = std::move(other.writing_);
      unwinding_ = other.unwinding_;
      mode_ = other.mode_;
    }
    return *this;
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() { finish(); }

  // Writes what is buffered and, for a file made new, gives it its name. Destroying the File
  // does the same, unless an exception is on its way: then a new file is removed.
  void close() {
    if (!id_.valid()) return;
    detail::quiet_errors quiet;
    const hid_t id = id_.get();
    H5Fflush(id, mode_ == mode::collective ? H5F_SCOPE_GLOBAL : H5F_SCOPE_LOCAL);
    id_ = detail::handle();
    if (mode_ == mode::create) name_when_on_disk(writing_, path_);
  }

  // A new file written whole under the temporary name `writing`, flushed to the disk and given
  // its name `path`; if it cannot be, removed. A collective file's ranks call it on one rank.
  static void name_when_on_disk(const std::string& writing, const std::string& path) {
    std::error_code failed = parloop::detail::sync_to_disk(writing);
    if (!failed) std::filesystem::rename(writing, path, failed);
    if (failed) {
      const std::string why = failed.message();
      std::filesystem::remove(writing, failed);
      throw file_error(parloop::detail::format("{}: could not be written to the disk and named: {}", path, why));
    }
  }

  // Starts the disk writing what has been written so far and returns at once (Linux; elsewhere it
  // does nothing), so that the disk works while the next dataset is made ready: a checkpoint's
  // close then waits for the last one only.
  void start_writeback() const {
#ifdef __linux__
    detail::quiet_errors quiet;
    if (!id_.valid() || H5Fflush(id_.get(), H5F_SCOPE_LOCAL) < 0) return;
    const detail::handle access(H5Fget_access_plist(id_.get()), &H5Pclose);
    void* fd = nullptr;
    // Only HDF5's POSIX driver's handle is a descriptor (MPI-IO's is an MPI_File).
    if (access.valid() && H5Pget_driver(access.get()) == H5FD_SEC2 &&
        H5Fget_vfd_handle(id_.get(), H5P_DEFAULT, &fd) >= 0 && fd != nullptr) {
      ::sync_file_range(*static_cast<int*>(fd), 0, 0, SYNC_FILE_RANGE_WRITE);
    }
#endif
  }

  const std::string& path() const { return path_; }
  bool writable() const { return mode_ != mode::read; }
  hid_t id() const { return id_.get(); }

  // Whether the file has an object at this path ("cells", "/group/p_x"): each group on the way
  // is checked before the next, as HDF5 asks.
  bool contains(std::string_view name) const {
    detail::quiet_errors quiet;
    std::string prefix;
    std::size_t from = name.starts_with('/') ? 1 : 0;
    if (from == name.size()) return false;
    while (from <= name.size()) {
      const std::size_t slash = std::min(name.find('/', from), name.size());
      prefix += "/";
      prefix += name.substr(from, slash - from);
      if (H5Lexists(id_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      from = slash + 1;
    }
    return true;
  }

 private:
  enum class mode { read, append, create, collective };

  File(std::string path, mode m, hid_t access = H5P_DEFAULT) : path_(std::move(path)), mode_(m) {
    detail::quiet_errors quiet;
    if (path_.empty()) throw file_error("an HDF5 file needs a name");
    const bool exists = std::filesystem::exists(path_);
    hid_t id = H5I_INVALID_HID;
    if (m == mode::read || (m == mode::append && exists)) {
      if (!exists) throw file_error(parloop::detail::format("{}: no such file", path_));
      if (H5Fis_hdf5(path_.c_str()) <= 0) {
        throw file_error(
            parloop::detail::format("{}: not an HDF5 file (or damaged): {}", path_, detail::library_says()));
      }
      id = H5Fopen(path_.c_str(), m == mode::read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, H5P_DEFAULT);
    } else {
      writing_ = m == mode::create ? path_ + ".parloop-partial" : path_;
      id = H5Fcreate(writing_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
    }
    if (id < 0) {
      throw file_error(parloop::detail::format("{}: could not be opened {}: {}", path_,
                                               m == mode::read ? "to read" : "to write", detail::library_says()));
    }
    id_ = detail::handle(id, &H5Fclose);
    unwinding_ = std::uncaught_exceptions();
  }

  // close(), or on the way out of an exception the new file removed; never throws.
  void finish() noexcept {
    if (!id_.valid()) return;
    if ((mode_ == mode::create || mode_ == mode::collective) && std::uncaught_exceptions() > unwinding_) {
      id_ = detail::handle();
      std::error_code ignored;
      std::filesystem::remove(writing_, ignored);
      return;
    }
    try {
      close();
    } catch (const file_error& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
  }

  detail::handle id_;
  std::string path_;
  std::string writing_;  // the name a new file is written under until it is closed
  int unwinding_ = 0;    // exceptions on their way when it was opened
  mode mode_;
};

}  // namespace hdf5
}  // namespace parloop
