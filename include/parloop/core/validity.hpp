// SPDX-License-Identifier: MIT
// Which copy of an array is current (a bit mask), and the counted copies between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace parloop {

// Flags, not an enumeration: both copies can be current at once.
enum class validity : std::uint8_t { none = 0, host = 1, device = 2, both = 3 };

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
  // The host reads results: a download, which waits for the loops before it. A backend throws
  // here, once, what those loops found wrong on the device (a computed index out of range).
  virtual void read_back(const device_buffer& src, void* dst, std::size_t bytes) { download(src, dst, bytes); }
  // Waits for everything enqueued; throws, as read_back does, what the loops found wrong.
  virtual void synchronize() {}
};

// The host array of a dat or global and, once used on a device, its device copy. The
// mask says which is current; every copy between them is counted in the runtime's stats.
class mirrored_array {
 public:
  mirrored_array(void* host, std::size_t bytes, transfer_stats& stats)
      : host_(host), bytes_(bytes), stats_(&stats) {}
  mirrored_array(const mirrored_array&) = delete;
  mirrored_array& operator=(const mirrored_array&) = delete;

  validity valid() const { return valid_; }
  std::size_t bytes() const { return bytes_; }
  const device_buffer* buffer() const { return buffer_.get(); }

  // Before the host reads: copy back only if the host copy is stale.
  void ensure_host(device_memory* device) {
    if (has(valid_, validity::host)) return;
    device->read_back(*buffer_, host_, bytes_);
    stats_->to_host += 1;
    stats_->to_host_bytes += bytes_;
    valid_ = valid_ | validity::host;
  }
  // Before the host writes: afterwards only the host copy is current.
  void host_written(device_memory* device) {
    if (device != nullptr) ensure_host(device);
    valid_ = validity::host;
  }
  // Before the host writes every value: nothing to fetch, and afterwards only the host copy is current.
  void host_overwritten() { valid_ = validity::host; }
  // Before a device loop reads: allocate on first use, upload only if the device copy is stale.
  device_buffer& ensure_device(device_memory& device) {
    if (!buffer_) buffer_ = device.allocate(bytes_);
    if (!has(valid_, validity::device)) {
      device.upload(*buffer_, host_, bytes_);
      stats_->to_device += 1;
      stats_->to_device_bytes += bytes_;
      valid_ = valid_ | validity::device;
    }
    return *buffer_;
  }
  // After a device loop modified the device copy.
  void device_written() { valid_ = validity::device; }

 private:
  void* host_;
  std::size_t bytes_;
  transfer_stats* stats_;
  validity valid_ = validity::host;
  std::unique_ptr<device_buffer> buffer_;
};

}  // namespace detail
}  // namespace parloop
