// SPDX-License-Identifier: MIT
// Which copy of an array is current (a bit mask), and the counted copies between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/dat_layout.hpp"

namespace parloop {

// Flags, not an enumeration: several copies can be current at once. `user`: on a renumbered set,
// the copy in the user's numbering that views show (order/renumber.hpp).
enum class validity : std::uint8_t { none = 0, host = 1, device = 2, both = 3, user = 4 };

constexpr validity operator|(validity a, validity b) {
  return static_cast<validity>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr validity operator&(validity a, validity b) {
  return static_cast<validity>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
constexpr bool has(validity set, validity flag) { return (set & flag) == flag; }

// Copies between host and device, as counts and bytes.
struct transfer_stats {
  std::uint64_t to_device = 0;
  std::uint64_t to_device_bytes = 0;
  std::uint64_t to_host = 0;
  std::uint64_t to_host_bytes = 0;
};

namespace detail {

// Rows of `width` bytes: row i of `out` is row from[i] of `in`.
inline void gather_rows(std::byte* out, const std::byte* in, std::size_t width, std::span<const index_t> from) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    std::memcpy(out + i * width, in + static_cast<std::size_t>(from[i]) * width, width);
  }
}
// Rows of `width` bytes: row to[i] of `out` is row i of `in`.
inline void scatter_rows(std::byte* out, const std::byte* in, std::size_t width, std::span<const index_t> to) {
  for (std::size_t i = 0; i < to.size(); ++i) {
    std::memcpy(out + static_cast<std::size_t>(to[i]) * width, in + i * width, width);
  }
}

// A device allocation; what it holds is the backend's business.
class device_buffer {
 public:
  virtual ~device_buffer() = default;
};

// What a device backend plugs in so that dats and globals can live on its device.
class device_memory {
 public:
  virtual ~device_memory() = default;
  virtual std::unique_ptr<device_buffer> allocate(std::size_t bytes) = 0;
  virtual void upload(device_buffer& dst, const void* src, std::size_t bytes) = 0;
  virtual void download(const device_buffer& src, void* dst, std::size_t bytes) = 0;
  // Enqueues a copy back that the next download completes (in queue order); a backend without
  // a queue copies now.
  virtual void download_later(const device_buffer& src, void* dst, std::size_t bytes) { download(src, dst, bytes); }
  // Waits for every copy and loop enqueued: the copies download_later staged arrive.
  virtual void wait() = 0;
  // The host reads results: a download, which waits for the loops before it. A backend throws
  // here, once, what those loops found wrong on the device (a computed index out of range).
  virtual void read_back(const device_buffer& src, void* dst, std::size_t bytes) { download(src, dst, bytes); }
  // Waits for everything enqueued; throws, as read_back does, what the loops found wrong.
  virtual void synchronize() { wait(); }
};

// A dat that a device keeps component by component (dat_layout::soa): its elements, of `dim`
// scalars of `scalar` bytes, and how many elements apart its components lie on the device.
struct component_shape {
  std::size_t elements = 0;
  std::size_t dim = 1;
  std::size_t scalar = 0;
  std::size_t stride = 0;  // 0: the device keeps it as the host does

  std::size_t device_bytes() const { return stride * dim * scalar; }
};

// The shape of a dat of `dim` components on `elements` elements under `layout`: only a dat of
// several components is kept by components.
inline component_shape shape_under(dat_layout layout, std::size_t elements, std::size_t dim, std::size_t scalar) {
  if (layout == dat_layout::aos || dim < 2) return {};
  return {elements, dim, scalar, soa_stride(elements)};
}

// The host array of a dat or global and, once used on a device, its device copy. The
// mask says which is current; every copy between them is counted in the runtime's stats (in
// the device copy's bytes). A copy of an array kept by components is transposed on the host,
// on its way.
class mirrored_array {
 public:
  // Moves the loops' copy of a dat to storage of its own, rows in the order old_of_new gives, the
  // first time its set is renumbered, and returns where it now is: the storage it leaves becomes
  // the user's copy, so that a view of it taken before keeps the user's numbering. Called with
  // the owner of the host copy, which knows its type.
  // make_user allocates the user's copy of a dat made on a set already renumbered, when a view
  // first asks for it, and returns where it is.
  struct loop_copy_mover {
    std::byte* (*move)(void* owner, std::span<const index_t> old_of_new);
    std::byte* (*make_user)(void* owner);
    void* owner;
  };

  mirrored_array(void* host, std::size_t bytes, transfer_stats& stats, component_shape shape = {},
                 loop_copy_mover mover = {})
      : host_(host), bytes_(bytes), stats_(&stats), shape_(shape), mover_(mover) {}
  mirrored_array(const mirrored_array&) = delete;
  mirrored_array& operator=(const mirrored_array&) = delete;

  validity valid() const { return valid_; }
  std::size_t bytes() const { return bytes_; }
  // The host copy, as it is: ensure_host first to read it, host_written or host_overwritten to write it.
  std::byte* host_bytes() const { return static_cast<std::byte*>(host_); }
  // How many elements apart the device copy's components lie; 0 where it is kept as the host's.
  std::size_t component_stride() const { return shape_.stride; }
  const device_buffer* buffer() const { return buffer_.get(); }

  // Before the host reads: copy back only if the host copy is stale.
  void ensure_host(device_memory* device) {
    if (has(valid_, validity::host)) return;
    if (has(valid_, validity::user)) {
      gather_rows(host_bytes(), user_, element_, *user_of_loop_);
      valid_ = valid_ | validity::host;
      return;
    }
    if (shape_.stride == 0) {
      device->read_back(*buffer_, host_, bytes_);
    } else {
      std::vector<unsigned char> components(shape_.device_bytes());
      device->read_back(*buffer_, components.data(), components.size());
      transpose(components.data(), host_, shape_.elements, shape_.dim, shape_.scalar, shape_.stride, false);
    }
    stats_->to_host += 1;
    stats_->to_host_bytes += device_bytes();
    valid_ = valid_ | validity::host;
  }
  // Before the host writes: afterwards only the host copy is current.
  void host_written(device_memory* device) {
    if (!has(valid_, validity::host)) ensure_host(device);
    valid_ = validity::host;
  }
  // Before the host writes every value: nothing to fetch, and afterwards only the host copy is current.
  void host_overwritten() { valid_ = validity::host; }
  // Before a device loop reads: allocate on first use, upload only if the device copy is stale.
  device_buffer& ensure_device(device_memory& device) {
    if (!buffer_) buffer_ = device.allocate(device_bytes());
    if (!has(valid_, validity::device)) {
      ensure_host(&device);
      if (shape_.stride == 0) {
        device.upload(*buffer_, host_, bytes_);
      } else {
        // The padding after each component is zeros, never read.
        std::vector<unsigned char> components(shape_.device_bytes());
        transpose(host_, components.data(), shape_.elements, shape_.dim, shape_.scalar, shape_.stride, true);
        device.upload(*buffer_, components.data(), components.size());
      }
      stats_->to_device += 1;
      stats_->to_device_bytes += device_bytes();
      valid_ = valid_ | validity::device;
    }
    return *buffer_;
  }
  // After a device loop modified the device copy.
  void device_written() { valid_ = validity::device; }

  // On a renumbered set, loops' copies (the host's, the device's) hold the elements in the loops'
  // order and views show a copy in the user's numbering, made when a view asks for it: element i
  // of the loops is the user's element user_of_loop[i].
  bool renumbered() const { return user_of_loop_ != nullptr; }
  // The user's copy, made current first: to read, or, after user_written or user_overwritten, to
  // write (loops then take it back at their first use).
  std::byte* user_bytes(device_memory* device) {
    if (!has(valid_, validity::user)) {
      ensure_host(device);
      if (user_ == nullptr) user_ = mover_.make_user(mover_.owner);
      scatter_rows(user_, host_bytes(), element_, *user_of_loop_);
      valid_ = valid_ | validity::user;
    }
    return user_;
  }
  void user_written(device_memory* device) {
    (void)user_bytes(device);
    valid_ = validity::user;
  }
  void user_overwritten() {
    if (user_ == nullptr) user_ = mover_.make_user(mover_.owner);
    valid_ = validity::user;
  }
  // A dat made on a set already renumbered, its host copy written in the loops' order: the user's
  // copy is made when a view first asks for it.
  void adopt_loop_order(std::shared_ptr<const std::vector<index_t>> user_of_loop) {
    element_ = user_of_loop->empty() ? 0 : bytes_ / user_of_loop->size();
    user_of_loop_ = std::move(user_of_loop);
  }
  // The loops' elements put in a new order: element i is the one that was old_of_new[i], and
  // user_of_loop numbers them afterwards. The device's copy, in the old order, is stale; the
  // user's, whose numbering does not change, stays as it is. The first time, the host copy in
  // the user's numbering becomes the user's copy where it lies, and the loops' copy moves.
  void reorder(std::span<const index_t> old_of_new, std::shared_ptr<const std::vector<index_t>> user_of_loop,
               device_memory* device) {
    ensure_host(device);
    element_ = old_of_new.empty() ? 0 : bytes_ / old_of_new.size();
    if (!renumbered()) {
      user_ = host_bytes();
      host_ = mover_.move(mover_.owner, old_of_new);
      valid_ = validity::host | validity::user;
    } else {
      std::vector<std::byte> moved(bytes_);
      gather_rows(moved.data(), host_bytes(), element_, old_of_new);
      if (bytes_ > 0) std::memcpy(host_, moved.data(), bytes_);
      valid_ = (valid_ & validity::user) | validity::host;
    }
    user_of_loop_ = std::move(user_of_loop);
  }

 private:
  std::size_t device_bytes() const { return shape_.stride == 0 ? bytes_ : shape_.device_bytes(); }

  void* host_;
  std::size_t bytes_;
  transfer_stats* stats_;
  component_shape shape_;
  validity valid_ = validity::host;
  std::unique_ptr<device_buffer> buffer_;
  loop_copy_mover mover_;
  // On a renumbered set: the user's numbering, the bytes of an element, the user's copy (the
  // storage the host copy had before, which its owner keeps).
  std::shared_ptr<const std::vector<index_t>> user_of_loop_;
  std::size_t element_ = 0;
  std::byte* user_ = nullptr;
};

}  // namespace detail
}  // namespace parloop
