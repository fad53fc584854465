// SPDX-License-Identifier: MIT
// The mpi component's headers (METIS, and Scotch where built), compiled and linked by a consumer.
#include <parloop/mpi/partition.hpp>

std::vector<int> two_parts() {
  const parloop::index_t edges[] = {0, 1, 1, 2, 2, 3};
  return parloop::mpi::partition_graph(parloop::mpi::joined_by(edges, 2, 4), 2);
}
