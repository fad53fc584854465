// SPDX-License-Identifier: MIT
// Reading Airfoil's mesh: OP2's text layout (new_grid.dat, examples/airfoil/mesh.hpp's reader)
// against OP2's HDF5 layout (new_grid.h5, through parloop's hdf5 component), the same mesh in the
// same run, and the HDF5 file's writing against the disk's sequential write speed (dd's figure,
// given). Each figure is the median of the runs after a first one, each read from the page cache
// as a job's restart would find a file it wrote; the mesh read back must equal the one written.
//   bench_mesh_read [--size CELLS] [--runs N] [--folder DIR] [--disk-mbps MB/s]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "../examples/airfoil/flow.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/mesh_hdf5.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "common.hpp"

namespace {

template <class F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median of `runs` timed calls after an untimed first one.
template <class F>
double median_seconds(int runs, F&& f) {
  f();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) times.push_back(seconds(f));
  return parloop_bench::median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int size = 720'000, runs = 5;
  std::string folder = std::filesystem::temp_directory_path().string();
  std::optional<double> disk_mbps;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--size")
      size = std::atoi(argv[i + 1]);
    else if (a == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (a == "--folder")
      folder = argv[i + 1];
    else if (a == "--disk-mbps")
      disk_mbps = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: bench_mesh_read [--size CELLS] [--runs N] [--folder DIR] [--disk-mbps MB/s]\n");
      return 2;
    }
  }
  const airfoil::mesh m = airfoil::make_naca0012(size);
  const airfoil::flow c;
  const std::string text = folder + "/bench_mesh_read.dat", hdf5 = folder + "/bench_mesh_read.h5";
  airfoil::write_mesh(m, text);
  const double write_h5 = median_seconds(runs, [&] { airfoil::write_mesh_hdf5(m, c, hdf5); });
  const double read_text = median_seconds(runs, [&] {
    if (!(airfoil::read_mesh(text) == m)) throw std::runtime_error("the text mesh read back differs");
  });
  const double read_h5 = median_seconds(runs, [&] {
    if (!(airfoil::read_mesh_hdf5(hdf5) == m)) throw std::runtime_error("the HDF5 mesh read back differs");
  });
  const double h5_mb = static_cast<double>(std::filesystem::file_size(hdf5)) / 1e6;
  std::printf("mesh: %d cells, %d nodes, %d edges; text %.1f MB, HDF5 %.1f MB; median of %d runs\n", m.ncell, m.nnode,
              m.nedge, static_cast<double>(std::filesystem::file_size(text)) / 1e6, h5_mb, runs);
  std::printf("read text     %8.4f s\n", read_text);
  std::printf("read HDF5     %8.4f s   text / HDF5 = %.1f\n", read_h5, read_text / read_h5);
  std::printf("write HDF5    %8.4f s   %.0f MB/s", write_h5, h5_mb / write_h5);
  if (disk_mbps) std::printf(", %.0f%% of the disk's %.0f MB/s", 100.0 * h5_mb / write_h5 / *disk_mbps, *disk_mbps);
  std::printf("\n");
  std::filesystem::remove(text);
  std::filesystem::remove(hdf5);
  return 0;
}
