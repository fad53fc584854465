// SPDX-License-Identifier: MIT
// Small copies from the device that ride along with the next download (the index checks'
// record): a backend copies them without waiting into pinned memory -- a copy into pageable
// memory would wait, whatever the API is told -- and they reach their places when that download
// returns. The bookkeeping is the same for every backend; the pinned memory is the backend's.
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

}  // namespace parloop::exec
