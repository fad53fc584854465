// SPDX-License-Identifier: MIT
// A set distributed over ranks (OP2's regions), and the link between ranks its loops use: the
// seam between par_loop and MPI, as device_backend is the seam to the devices. Core and exec see
// only this interface; the mpi component implements it (mpi/link.hpp), so a program built
// without MPI compiles and runs unchanged.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parloop/config.hpp"
#include "parloop/core/access.hpp"
#include "parloop/core/scalar_type.hpp"

namespace parloop {

// Messages posted to and from every rank that has any; wait() returns when all have arrived and
// been sent. Destroyed without a wait (an exception on the way), it abandons them.
class halo_transfer {
 public:
  virtual ~halo_transfer() = default;
  virtual void wait() = 0;
};

class rank_link {
 public:
  virtual ~rank_link() = default;
  // Tells this link from every other one of the process, also from a later one at its address.
  const std::uint64_t id = next_id();
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Sends sent[send_offsets[q], send_offsets[q + 1]) to each rank q and receives from it into
  // received[receive_offsets[q], receive_offsets[q + 1]), without waiting. Every rank starts its
  // transfers over one link in the same order.
  virtual std::unique_ptr<halo_transfer> start(std::span<const std::byte> sent,
                                               std::span<const std::size_t> send_offsets, std::span<std::byte> received,
                                               std::span<const std::size_t> receive_offsets) = 0;
  // Combines `count` values of `type` across every rank (sum for inc, minimum, maximum), in place.
  virtual void all_reduce(void* values, int count, scalar_type type, access op) = 0;
  // Whether `mine` holds on every rank.
  virtual bool all(bool mine) = 0;
  // Root's bytes on every rank.
  virtual void broadcast(std::string& bytes, int root) = 0;

 private:
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> made{0};
    return made.fetch_add(1) + 1;
  }
};

// While one lives on a thread, the kernels built for its launches are agreed on over `link`: one
// rank compiles or loads each, and the others take its binary (exec/kernel/kernel_cache.hpp). Set
// around a distributed loop's own launches, which every rank makes in the same order.
class agreeing_on {
 public:
  explicit agreeing_on(rank_link* link) : previous_(current()) { current() = link; }
  ~agreeing_on() { current() = previous_; }
  agreeing_on(const agreeing_on&) = delete;
  agreeing_on& operator=(const agreeing_on&) = delete;
  // The link of the innermost on this thread, or null.
  static rank_link* link() { return current(); }

 private:
  static rank_link*& current() {
    thread_local rank_link* link = nullptr;
    return link;
  }
  rank_link* previous_;
};

namespace detail {

// One set's share on this rank. Local numbers run core, the rest of owned, exec halo, non-exec
// halo (mpi/halo_plan.hpp says which element goes where, mpi/region_order.hpp in which order).
struct set_distribution {
  std::shared_ptr<rank_link> link;
  index_t core_end = 0;
  index_t owned_end = 0;
  index_t exec_end = 0;
  // Local element i is global element global[i]; the set has global_size elements on all ranks.
  std::vector<index_t> global;
  index_t global_size = 0;
  // The owned elements sent to each rank, then the halo elements received from each, by rank:
  // rank q's are exports[export_offsets[q], export_offsets[q + 1]), in the order q expects them.
  std::vector<index_t> exports, imports;
  std::vector<std::size_t> export_offsets, import_offsets;
};

}  // namespace detail
}  // namespace parloop
