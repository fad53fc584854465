// SPDX-License-Identifier: MIT
// Renumbers every set of an Airfoil mesh (OP2's new_grid.dat layout, examples/airfoil/mesh.hpp)
// at random -- nodes, cells, edges and boundary edges each by a permutation of its own, the maps
// between them translated -- and writes the result: the same mesh, numbered as badly as a mesh
// generator or partitioner could number it. Airfoil on the copy computes the same rms history;
// how much slower it runs is what renumbering for locality has to win back (issue 28).
// Usage: shuffle_mesh IN OUT [--seed S]     (a mesh to start from: airfoil --write-mesh IN)
#include "../examples/airfoil/arguments.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "mesh_orders.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using parloop::index_t;

// old_of_new: the i-th element of the copy is element old_of_new[i] of the original.
std::vector<index_t> random_order(int n, std::mt19937_64& rng) {
  std::vector<index_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), index_t{0});
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

airfoil::mesh shuffled(const airfoil::mesh& m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  mesh_orders::set_orders o;
  o.nodes = random_order(m.nnode, rng);
  o.cells = random_order(m.ncell, rng);
  o.edges = random_order(m.nedge, rng);
  o.bedges = random_order(m.nbedge, rng);
  return mesh_orders::reordered(m, o);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string_view> paths;
    std::uint64_t seed = 20261204;
    for (int i = 1; i < argc; ++i) {
      const std::string_view a = argv[i];
      if (a == "--seed") {
        if (i + 1 >= argc) throw parloop::argument_error("--seed needs a value");
        seed = static_cast<std::uint64_t>(airfoil::whole_number(a, argv[++i], 0, INT64_MAX));
      } else {
        paths.push_back(a);
      }
    }
    if (paths.size() != 2) throw parloop::argument_error("usage: shuffle_mesh IN OUT [--seed S]");
    const airfoil::mesh m = airfoil::read_mesh(std::string(paths[0]));
    airfoil::write_mesh(shuffled(m, seed), std::string(paths[1]));
    std::printf("%s: %d nodes, %d cells, %d edges, %d boundary edges renumbered at random (seed %llu)\n",
                std::string(paths[1]).c_str(), m.nnode, m.ncell, m.nedge, m.nbedge,
                static_cast<unsigned long long>(seed));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shuffle_mesh: %s\n", e.what());
    return 1;
  }
}
