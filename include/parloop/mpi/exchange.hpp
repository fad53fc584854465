// SPDX-License-Identifier: MIT
// A halo exchange of one array over a set's plan (mpi/halo_plan.hpp): start() packs the values
// of the owned elements each neighbour imports and posts every receive and send without waiting;
// finish() waits and unpacks what arrived into the halo's places. Between the two a rank computes
// what needs no halo (the core). Exchanges over one communicator are started in the same order on
// every rank (their messages share a tag, and MPI keeps the order of messages between two ranks).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "parloop/error.hpp"
#include "parloop/mpi/halo_plan.hpp"
#include "parloop/mpi/session.hpp"

namespace parloop::mpi {

template <class T>
class halo_exchange {
 public:
  // An array of `dim` values of T per local element of `set` (size() elements), on `comm`.
  halo_exchange(MPI_Comm comm, const rank_set& set, int dim) : comm_(comm), set_(&set), dim_(dim) {
    if (dim < 1) throw argument_error(fmt::format("halo_exchange: {} values per element", dim));
    const auto ranks = static_cast<std::size_t>(size_of(comm));
    if (set.import_from.size() != ranks || set.export_to.size() != ranks) {
      throw argument_error(fmt::format("halo_exchange: a plan for {} ranks on a communicator of {}",
                                       set.import_from.size(), ranks));
    }
    buffers_->sent.resize(ranks);
    buffers_->received.resize(ranks);
  }
  halo_exchange(const halo_exchange&) = delete;
  halo_exchange& operator=(const halo_exchange&) = delete;
  // An exchange abandoned between start() and finish() (an exception on the way): its receives
  // are cancelled and its requests freed, and the buffers are left to MPI rather than freed under
  // a transfer that may still be going on -- the job is ending then, and a wait could hang it.
  ~halo_exchange() {
    if (requests_.empty()) return;
    for (MPI_Request& r : requests_) {
      if (r == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    }
    static_cast<void>(buffers_.release());
  }

  void start(std::span<const T> values) {
    check_size(values.size());
    if (started_) throw error("halo_exchange: started again before it finished");
    started_ = true;
    auto& received = buffers_->received;
    for (std::size_t q = 0; q < received.size(); ++q) {
      const auto& places = set_->import_from[q];
      if (places.empty()) continue;
      received[q].resize(places.size() * static_cast<std::size_t>(dim_));
      post(MPI_Irecv, received[q].data(), received[q].size(), static_cast<int>(q), "MPI_Irecv");
    }
    auto& sent = buffers_->sent;
    for (std::size_t q = 0; q < sent.size(); ++q) {
      const auto& places = set_->export_to[q];
      if (places.empty()) continue;
      std::vector<T>& buffer = sent[q];
      buffer.resize(places.size() * static_cast<std::size_t>(dim_));
      for (std::size_t i = 0; i < places.size(); ++i) {
        std::memcpy(&buffer[i * static_cast<std::size_t>(dim_)],
                    &values[static_cast<std::size_t>(places[i]) * static_cast<std::size_t>(dim_)], sizeof(T) * static_cast<std::size_t>(dim_));
      }
      post(MPI_Isend, buffer.data(), buffer.size(), static_cast<int>(q), "MPI_Isend");
    }
  }

  void finish(std::span<T> values) {
    check_size(values.size());
    if (!started_) throw error("halo_exchange: finished without a start");
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    requests_.clear();
    started_ = false;
    const auto& received = buffers_->received;
    for (std::size_t q = 0; q < received.size(); ++q) {
      const auto& places = set_->import_from[q];
      for (std::size_t i = 0; i < places.size(); ++i) {
        std::memcpy(&values[static_cast<std::size_t>(places[i]) * static_cast<std::size_t>(dim_)],
                    &received[q][i * static_cast<std::size_t>(dim_)], sizeof(T) * static_cast<std::size_t>(dim_));
      }
    }
  }

 private:
  static constexpr int tag = 0x4841;  // "HA"

  void check_size(std::size_t n) const {
    if (n != static_cast<std::size_t>(set_->size()) * static_cast<std::size_t>(dim_)) {
      throw argument_error(fmt::format("halo_exchange: {} values for {} elements of {}", n, set_->size(), dim_));
    }
  }

  // Posts a receive or send of `count` values of T with rank q.
  template <class Post, class Buffer>
  void post(Post&& mpi_call, Buffer* data, std::size_t count, int q, const char* what) {
    const std::size_t bytes = count * sizeof(T);
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw error(fmt::format("halo_exchange: {} bytes with rank {} are too many for one message", bytes, q));
    }
    MPI_Request r;
    check(mpi_call(data, static_cast<int>(bytes), MPI_BYTE, q, tag, comm_, &r), what);
    requests_.push_back(r);
  }

  MPI_Comm comm_;
  const rank_set* set_;
  int dim_;
  struct buffers {
    std::vector<std::vector<T>> sent, received;
  };
  std::unique_ptr<buffers> buffers_ = std::make_unique<buffers>();
  std::vector<MPI_Request> requests_;
  bool started_ = false;
};

}  // namespace parloop::mpi
