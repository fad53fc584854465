// SPDX-License-Identifier: MIT
// Small copies from the device that ride along with the next download (the index checks'
// record): a backend copies them without waiting into pinned memory -- a copy into pageable
// memory would wait, whatever the API is told -- and they reach their places when that download
// returns. Small copies to the device (a global the host resets between loops) go the other way
// through pinned memory without waiting either. The bookkeeping is the same for every backend;
// the pinned memory is the backend's.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

namespace parloop::exec {

class staged_copies {
 public:
  // The bytes of pinned memory a backend provides.
  static constexpr std::size_t capacity = 4096;

  // Stages a copy of `bytes` to `dst`: `enqueue(at)` starts it, without waiting, into the pinned
  // memory `pinned()` gives, at `at`; where that is full, `now()` downloads it instead.
  template <class Pinned, class Enqueue, class Now>
  void stage(void* dst, std::size_t bytes, Pinned&& pinned, Enqueue&& enqueue, Now&& now) {
    if (bytes == 0) return;
    if (used_ + bytes > capacity) {
      now();
      return;
    }
    unsigned char* at = pinned() + used_;
    enqueue(at);
    copies_.push_back({at, dst, bytes});
    used_ += bytes;
  }
  // After a download waited for everything enqueued before it: every copy to its place.
  void arrived() {
    for (const copy& c : copies_) std::memcpy(c.dst, c.at, c.bytes);
    copies_.clear();
    used_ = 0;
  }

 private:
  struct copy {
    unsigned char* at;
    void* dst;
    std::size_t bytes;
  };
  std::vector<copy> copies_;
  std::size_t used_ = 0;
};

// Small uploads that do not wait for the queue: the values are copied into pinned memory at
// once (the host may change its own right after), and the device copies them from there in
// queue order, before the loops enqueued after them. A place is free again once the queue has
// been waited for; where the memory is full, the backend waits first. Without this, a value
// reset between loops (Airfoil's rms) would empty the queue twice an iteration
// (docs/performance.md, Airfoil on the GPU).
class staged_uploads {
 public:
  // The bytes of pinned memory a backend provides, after staged_copies' own.
  static constexpr std::size_t capacity = 4096;

  // Stages an upload of `bytes` (at most capacity) from `src`: `enqueue(at)` starts the copy from
  // the pinned memory `pinned()` gives, at `at`, without waiting; `wait()` waits for the queue
  // and calls waited(). Returns false, doing nothing, for a copy too large to stage.
  template <class Pinned, class Enqueue, class Wait>
  bool stage(const void* src, std::size_t bytes, Pinned&& pinned, Enqueue&& enqueue, Wait&& wait) {
    if (bytes > capacity) return false;
    if (used_ + bytes > capacity) wait();
    unsigned char* at = pinned() + used_;
    std::memcpy(at, src, bytes);
    enqueue(at);
    used_ += bytes;
    return true;
  }
  // After the backend waited for everything enqueued: every place is free.
  void waited() { used_ = 0; }

 private:
  std::size_t used_ = 0;
};

}  // namespace parloop::exec
