// SPDX-License-Identifier: MIT
// HDF5's C API as parloop calls it: identifiers closed by their owners, HDF5's own printing of
// errors turned off for the length of a call (and restored: the program's setting is its own),
// and what HDF5 said went wrong, for parloop's message.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace parloop::hdf5::detail {

// One HDF5 identifier and the function that closes its kind (H5Fclose, H5Dclose, ...).
class handle {
 public:
  handle() = default;
  handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  handle(handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(std::exchange(other.close_, nullptr)) {}
  handle& operator=(handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = std::exchange(other.close_, nullptr);
    }
    return *this;
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  void reset() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// While it lives, HDF5 prints no error stack of its own: parloop's exception says what was
// wrong, with what HDF5 said (library_says).
class quiet_errors {
 public:
  quiet_errors() {
    H5Eget_auto2(H5E_DEFAULT, &print_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  quiet_errors(const quiet_errors&) = delete;
  quiet_errors& operator=(const quiet_errors&) = delete;
  ~quiet_errors() { H5Eset_auto2(H5E_DEFAULT, print_, data_); }

 private:
  H5E_auto2_t print_ = nullptr;
  void* data_ = nullptr;
};

// The description of the deepest error on HDF5's stack (where it started), and the stack
// cleared; empty if HDF5 recorded none.
inline std::string library_says() {
  std::string said;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc != nullptr && *e->desc != '\0') *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &said);
  H5Eclear2(H5E_DEFAULT);
  return said;
}

}  // namespace parloop::hdf5::detail
