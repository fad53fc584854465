// SPDX-License-Identifier: MIT
// An OP2 application over MPI ranks, as OP2's MPI applications are written: each rank declares
// its block of every set (the blocks in rank order make the global numbering), with the rows of
// the maps from its block in global numbers and the values of the dats on it; op_partition then
// distributes the mesh (mpi/distribute.hpp) and puts each handle on this rank's share. Loops then
// run as parloop's distributed loops: halos exchanged, reductions combined over the ranks. What
// an application reads back (op_fetch_data, the files) is in the declared numbering.
// op_lib_mpi.h installs it; the application links parloop::mpi.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/mpi/distribute.hpp"
#include "parloop/mpi/gather.hpp"
#include "parloop/op2/errors.hpp"
#include "parloop/op2/handles.hpp"
#include "parloop/op2/program.hpp"

namespace parloop::op2 {

class mpi_distribution final : public distribution {
 public:
  std::pair<int, int> start() override {
    int started = 0;
    MPI_Initialized(&started);
    if (started == 0) {
      mpi::check(MPI_Init(nullptr, nullptr), "MPI_Init");
      began_ = true;
    }
    // An error on one rank ends the job: the others may be waiting for it in a collective.
    on_fatal_error() = [] { MPI_Abort(MPI_COMM_WORLD, 1); };
    return {mpi::rank_of(MPI_COMM_WORLD), mpi::size_of(MPI_COMM_WORLD)};
  }

  void declare_set(const op_set_core& s) override { sets_.push_back(mesh_.set(s.size, s.name_text)); }
  void declare_map(const op_map_core& m) override {
    maps_.push_back(mesh_.map(sets_.at(static_cast<std::size_t>(m.from->index)),
                              sets_.at(static_cast<std::size_t>(m.to->index)), m.dim,
                              std::vector<index_t>(m.values.begin(), m.values.end()), m.name_text));
  }
  void declare_dat(const op_dat_core& d, const std::byte* values) override {
    std::vector<std::byte> bytes(static_cast<std::size_t>(d.set->size) * static_cast<std::size_t>(d.size));
    if (values != nullptr && !bytes.empty()) std::copy(values, values + bytes.size(), bytes.begin());
    dats_[&d] =
        mesh_.dat(sets_.at(static_cast<std::size_t>(d.set->index)), d.scalar, d.dim, std::move(bytes), d.name_text);
  }

  void partition(program& p, const char* lib, const char* routine, op_set_core* prime_set, op_map_core* prime_map,
                 op_dat_core* coords) override {
    (void)prime_set;
    const std::string library = upper(lib), method = upper(routine);
    std::string said;
    const mpi::partitioning how = choose(p, library, method, prime_map, coords, said);
    mine_.emplace(p.runtime, MPI_COMM_WORLD, mesh_, how);
    for (std::size_t i = 0; i < sets_.size(); ++i) {
      op_set_core& s = *p.sets[i];
      *s.set = (*mine_)[sets_[i]];
      const parloop::detail::set_distribution& share = *s.set->distribution();
      s.core_size = static_cast<int>(share.core_end);
      s.exec_size = static_cast<int>(share.exec_end - share.owned_end);
      s.nonexec_size = static_cast<int>(share.global.size()) - static_cast<int>(share.exec_end);
      s.numbers.reset();
      const index_t declared = s.size;
      index_t before = 0;
      mpi::check(MPI_Exscan(&declared, &before, 1, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan");
      block_starts_[&s] = p.rank == 0 ? 0 : static_cast<std::size_t>(before);
    }
    for (std::size_t i = 0; i < maps_.size(); ++i) p.maps[i]->parloop_map = (*mine_)[maps_[i]];
    for (const auto& d : p.dats) {
      const auto at = dats_.find(d.get());
      if (at == dats_.end()) continue;
      const detail::any_array a = mine_->array(at->second);
      d->state = a.owner;
      d->array = a.values;
    }
    if (p.rank == 0 && library == "BLOCK")
      std::printf("op_halo_create: %s over %d ranks\n", said.c_str(), p.ranks);
    else if (p.rank == 0)
      std::printf("op_partition(%s, %s): %s over %d ranks\n", lib, routine, said.c_str(), p.ranks);
  }

  bool partitioned() const override { return mine_.has_value(); }

  std::vector<std::byte> gathered(op_dat_core& d) override {
    const parloop::detail::set_distribution& sd = *d.set->set->distribution();
    d.array->ensure_host(d.state->device());
    const std::size_t row = static_cast<std::size_t>(d.size);
    const std::span<const std::byte> local(d.array->host_bytes(), static_cast<std::size_t>(d.set->set->size()) * row);
    std::vector<std::byte> all = mpi::gather_owned<std::byte>(mine_->comm(), sd.global, sd.owned_end, local,
                                                              static_cast<int>(row), sd.global_size, 0);
    all.resize(static_cast<std::size_t>(sd.global_size) * row);
    mpi::check(MPI_Bcast(all.data(), static_cast<int>(all.size()), MPI_BYTE, 0, mine_->comm()), "MPI_Bcast");
    return all;
  }

  std::size_t block_start(const op_set_core& s) const override { return block_starts_.at(&s); }

  std::vector<std::byte> blocks_on_root(std::span<const std::byte> mine) override {
    const int rank = mpi::rank_of(MPI_COMM_WORLD), ranks = mpi::size_of(MPI_COMM_WORLD);
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(ranks) : 0), offsets(counts.size());
    mpi::check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(counts[r]);
    }
    std::vector<std::byte> all(total);
    mpi::check(MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
                           MPI_COMM_WORLD),
               "MPI_Gatherv");
    return all;
  }

  int global_size(const op_set_core& s) const override {
    if (const parloop::detail::set_distribution* d = s.set->distribution()) return static_cast<int>(d->global_size);
    // Before op_partition: the declared blocks together (collective, as OP2's is).
    int total = 0;
    mpi::check(MPI_Allreduce(&s.size, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return total;
  }

  void barrier() override { mpi::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  void finish() override {
    mine_.reset();
    on_fatal_error() = nullptr;
    int finished = 0;
    MPI_Finalized(&finished);
    if (began_ && finished == 0) MPI_Finalize();
  }

 private:
  static std::string upper(const char* text) {
    std::string out = text != nullptr ? text : "";
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  }

  // What op_partition's library and routine become: a geometric routine with coordinates,
  // recursive coordinate bisection; otherwise the graph of the map named (or the first declared),
  // cut by Scotch where PT-Scotch is asked for and this build has Scotch, else by METIS; without
  // maps, or where "BLOCK" is asked for (op_halo_create), the first set's blocks as declared, the
  // others' elements following their maps.
  mpi::partitioning choose(const program& p, const std::string& library, const std::string& method,
                           const op_map_core* prime_map, const op_dat_core* coords, std::string& said) const {
    const bool geometric = method == "GEOM" || method == "GEOMKWAY" || library == "INERTIAL";
    if (geometric && coords != nullptr && coords->scalar == scalar_type::float64 && coords->dim >= 1 &&
        coords->dim <= 3 && dats_.contains(coords)) {
      said = parloop::detail::format("recursive coordinate bisection of dat '{}'", coords->name_text);
      const int d = dats_.at(coords);
      if (coords->dim == 1) return mpi::partitioning::by_coordinates(mpi::dat_id<double, 1>{d});
      if (coords->dim == 2) return mpi::partitioning::by_coordinates(mpi::dat_id<double, 2>{d});
      return mpi::partitioning::by_coordinates(mpi::dat_id<double, 3>{d});
    }
    if (p.sets.empty()) throw argument_error("op_partition: no set is declared to partition");
    const op_map_core* map = prime_map != nullptr ? prime_map : p.maps.empty() ? nullptr : p.maps.front().get();
    // op_halo_create asks for the blocks as declared.
    if (library == "BLOCK") map = nullptr;
    if (map != nullptr) {
      mpi::graph_partitioner which = mpi::graph_partitioner::metis;
#if PARLOOP_HAVE_SCOTCH
      if (library == "PTSCOTCH" || library == "SCOTCH") which = mpi::graph_partitioner::scotch;
#endif
      said = parloop::detail::format("{}'s k-way partition of the graph of map '{}' ({})",
                                     which == mpi::graph_partitioner::scotch ? "Scotch" : "METIS", map->name_text,
                                     map->to->name_text);
      return mpi::partitioning::by_graph(maps_.at(static_cast<std::size_t>(map->index)), which);
    }
    said =
        library == "BLOCK" ? "the first set's blocks as declared" : "the blocks as declared (no map to partition by)";
    return mpi::partitioning::by_owners(sets_.front(),
                                        std::vector<int>(static_cast<std::size_t>(p.sets.front()->size), p.rank));
  }

  bool began_ = false;
  mpi::global_mesh mesh_{mpi::values_from::each_rank};
  std::vector<mpi::set_id> sets_;
  std::vector<mpi::map_id> maps_;
  std::map<const op_dat_core*, int> dats_;
  std::map<const op_set_core*, std::size_t> block_starts_;
  std::optional<mpi::distributed_mesh> mine_;
};

inline std::unique_ptr<distribution> make_mpi_distribution() { return std::make_unique<mpi_distribution>(); }

}  // namespace parloop::op2
