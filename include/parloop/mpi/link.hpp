// SPDX-License-Identifier: MIT
// The link between ranks that distributed sets' loops use (core/distribution.hpp), over a
// duplicate of an MPI communicator: halo transfers as non-blocking point-to-point messages,
// reductions as MPI_Allreduce. Transfers over one link share a tag; MPI keeps the order of
// messages between two ranks, and every rank starts its transfers in the same order -- which is
// why distributed loops run on one thread of each rank.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parloop/core/distribution.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

namespace detail {

class mpi_transfer final : public halo_transfer {
 public:
  mpi_transfer() = default;
  mpi_transfer(const mpi_transfer&) = delete;
  mpi_transfer& operator=(const mpi_transfer&) = delete;
  // Abandoned before its wait (an exception on the way, or a post that failed): its receives are
  // cancelled and every request freed (a send completes on its own). The buffers belong to the
  // arrays; the job is ending then (mpi::run), and a wait could hang it.
  ~mpi_transfer() override {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      if (i < receives_) MPI_Cancel(&requests_[i]);
      MPI_Request_free(&requests_[i]);
    }
  }
  // Receives are added before sends.
  void add(MPI_Request r, bool receive) {
    requests_.push_back(r);
    if (receive) ++receives_;
  }
  void wait() override {
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    requests_.clear();
    receives_ = 0;
  }

 private:
  std::vector<MPI_Request> requests_;
  std::size_t receives_ = 0;
};

inline MPI_Datatype datatype_of(scalar_type t) {
  switch (t) {
    case scalar_type::int32: return MPI_INT32_T;
    case scalar_type::int64: return MPI_INT64_T;
    case scalar_type::float32: return MPI_FLOAT;
    case scalar_type::float64: return MPI_DOUBLE;
    case scalar_type::boolean: break;
  }
  throw argument_error(parloop::detail::format("an all-reduce of {} values", type_name(t)));
}

inline MPI_Op op_of(access a) {
  switch (a) {
    case access::inc: return MPI_SUM;
    case access::min: return MPI_MIN;
    case access::max: return MPI_MAX;
    default: break;
  }
  throw argument_error("an all-reduce combines by pl::INC, pl::MIN or pl::MAX");
}

}  // namespace detail

class mpi_link final : public rank_link {
 public:
  // Over a duplicate of `comm` (collective): the loops' messages never meet the program's own,
  // whatever tags and wildcards those use.
  explicit mpi_link(MPI_Comm comm) : comm_(duplicate(comm)), rank_(rank_of(comm_)), ranks_(size_of(comm_)) {}
  mpi_link(const mpi_link&) = delete;
  mpi_link& operator=(const mpi_link&) = delete;
  // Freed unless MPI has finalized (a set kept past mpi::run): there is nothing to free then.
  ~mpi_link() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  MPI_Comm comm() const { return comm_; }

  std::unique_ptr<halo_transfer> start(std::span<const std::byte> sent, std::span<const std::size_t> send_offsets,
                                       std::span<std::byte> received,
                                       std::span<const std::size_t> receive_offsets) override {
    const auto ranks = static_cast<std::size_t>(ranks_);
    if (send_offsets.size() != ranks + 1 || receive_offsets.size() != ranks + 1 || send_offsets.back() != sent.size() ||
        receive_offsets.back() != received.size()) {
      throw argument_error(parloop::detail::format(
          "a halo transfer of {} and {} bytes with offsets for {} and {} ranks on {}", sent.size(), received.size(),
          send_offsets.size() - 1, receive_offsets.size() - 1, ranks));
    }
    // Each request is the transfer's as soon as it is posted: a post that fails leaves none behind.
    auto transfer = std::make_unique<detail::mpi_transfer>();
    // Receives first, so that no message waits for its buffer.
    for (std::size_t q = 0; q < ranks; ++q) {
      const std::size_t from = receive_offsets[q], to = receive_offsets[q + 1];
      if (to > from) transfer->add(post(MPI_Irecv, received.data() + from, to - from, q, "MPI_Irecv"), true);
    }
    for (std::size_t q = 0; q < ranks; ++q) {
      const std::size_t from = send_offsets[q], to = send_offsets[q + 1];
      // MPI_Isend takes a non-const buffer in older MPIs' headers; it only reads it.
      if (to > from)
        transfer->add(post(MPI_Isend, const_cast<std::byte*>(sent.data()) + from, to - from, q, "MPI_Isend"), false);
    }
    return transfer;
  }

  void all_reduce(void* values, int count, scalar_type type, access op) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, detail::datatype_of(type), detail::op_of(op), comm_),
          "MPI_Allreduce");
  }

  void broadcast(std::string& bytes, int root) override {
    auto length = static_cast<unsigned long long>(bytes.size());
    check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm_), "MPI_Bcast");
    if (length > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
      throw error(parloop::detail::format("a broadcast of {} bytes is too large for one message", length));
    }
    bytes.resize(static_cast<std::size_t>(length));
    check(MPI_Bcast(bytes.data(), static_cast<int>(length), MPI_BYTE, root, comm_), "MPI_Bcast");
  }

  bool all(bool mine) override {
    int v = mine ? 1 : 0;
    check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, comm_), "MPI_Allreduce");
    return v != 0;
  }

 private:
  static constexpr int tag = 0x4841;  // "HA"

  static MPI_Comm duplicate(MPI_Comm comm) {
    MPI_Comm mine = MPI_COMM_NULL;
    check(MPI_Comm_dup(comm, &mine), "MPI_Comm_dup");
    return mine;
  }

  template <class Post>
  MPI_Request post(Post&& mpi_call, std::byte* data, std::size_t bytes, std::size_t q, const char* what) {
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw error(
          parloop::detail::format("a halo transfer of {} bytes with rank {} is too large for one message", bytes, q));
    }
    MPI_Request r;
    check(mpi_call(data, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(q), tag, comm_, &r), what);
    return r;
  }

  MPI_Comm comm_;
  int rank_, ranks_;
};

}  // namespace parloop::mpi
