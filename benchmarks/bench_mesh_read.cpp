// SPDX-License-Identifier: MIT
// Airfoil's mesh and state in files: OP2's text layout (new_grid.dat, examples/airfoil/mesh.hpp's
// reader) against OP2's HDF5 layout (new_grid.h5, through parloop's hdf5 component), the same mesh
// in the same run; and a checkpoint of the solver's four dats on the cells (renumbered, a loop
// having changed them since) against the disk's sequential write speed, measured here as dd
// measures it (1 MiB writes, then fdatasync). Each figure is the median of the runs after a first
// one; reads are from the page cache, as a job's restart would find a file it wrote; the mesh read
// back must equal the one written.
//   bench_mesh_read [--size CELLS] [--runs N] [--folder DIR]
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "../examples/airfoil/flow.hpp"
#include "../examples/airfoil/mesh.hpp"
#include "../examples/airfoil/mesh_hdf5.hpp"
#include "../examples/airfoil/naca0012.hpp"
#include "../examples/airfoil/solver.hpp"
#include "common.hpp"

namespace pl = parloop;

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

// The disk's sequential write speed in MB/s, as `dd bs=1M conv=fdatasync` gives it: `bytes` in
// 1 MiB writes to a new file in `folder`, then flushed to the disk.
double disk_write_mbps(const std::string& folder, std::size_t bytes) {
  const std::string path = folder + "/bench_mesh_read.dd";
  const std::vector<char> block(std::size_t(1) << 20, 'x');
  const double took = seconds([&] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("cannot make " + path);
    for (std::size_t done = 0; done < bytes; done += block.size()) {
      if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()))
        throw std::runtime_error("cannot write " + path);
    }
    if (::fdatasync(fd) != 0 || ::close(fd) != 0) throw std::runtime_error("cannot flush " + path);
  });
  std::filesystem::remove(path);
  return static_cast<double>(bytes) / 1e6 / took;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 720'000, runs = 5;
  std::string folder = std::filesystem::temp_directory_path().string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--size")
      size = std::atoi(argv[i + 1]);
    else if (a == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (a == "--folder")
      folder = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: bench_mesh_read [--size CELLS] [--runs N] [--folder DIR]\n");
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
  std::printf("write HDF5    %8.4f s   %.0f MB/s\n", write_h5, h5_mb / write_h5);

  // The solver's state on the host backend, renumbered as the example runs it; before each
  // checkpoint a loop changes it, so that each writes the user's numbering afresh.
  const pl::Runtime rt = pl::Runtime::open(pl::backend_kind::host);
  const airfoil::mesh_handles h = airfoil::on_runtime(rt, m);
  pl::renumber(h.cells);
  std::vector<double> free_stream(4 * static_cast<std::size_t>(h.cells.size()));
  for (std::size_t i = 0; i < free_stream.size(); ++i) free_stream[i] = c.qinf[i % 4];
  pl::Dat<double, 4> q(h.cells, free_stream, "p_q"), qold(h.cells, "p_qold"), res(h.cells, "p_res");
  pl::Dat<double> adt(h.cells, "p_adt");
  const auto step = pl::kernel("bench_checkpoint_step", [](auto q, auto qold, auto res, auto adt) {
    for (int k = 0; k < 4; ++k) {
      qold[k] = q[k];
      res[k] = 0.5 * q[k];
      q[k] = 1.0001 * q[k];
    }
    adt = q[0];
  });
  const std::string checkpoint = folder + "/bench_checkpoint.h5";
  std::vector<double> times;
  for (int r = 0; r <= runs; ++r) {
    pl::par_loop(step, h.cells, q(pl::RW), qold(pl::WRITE), res(pl::WRITE), adt(pl::WRITE));
    const double t = seconds([&] { pl::hdf5::checkpoint(checkpoint, q, qold, res, adt); });
    if (r > 0) times.push_back(t);
  }
  const double write_checkpoint = parloop_bench::median(times);
  const double checkpoint_mb = static_cast<double>(std::filesystem::file_size(checkpoint)) / 1e6;
  std::filesystem::remove(checkpoint);
  const double disk = disk_write_mbps(folder, std::size_t(1) << 30);
  std::printf(
      "checkpoint    %8.4f s   %.1f MB, %.0f MB/s: %.0f%% of the disk's %.0f MB/s (1 GiB, 1 MiB writes, "
      "fdatasync)\n",
      write_checkpoint, checkpoint_mb, checkpoint_mb / write_checkpoint,
      100.0 * checkpoint_mb / write_checkpoint / disk, disk);
  std::filesystem::remove(text);
  std::filesystem::remove(hdf5);
  return 0;
}
