#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the headers and CMake package files of parloop's dependencies from this machine's
# Debian packages into .deps/, a prefix for CMAKE_PREFIX_PATH on a machine that has a
# compiler and CMake but not these packages (the GPU machine). .deps/ is git-ignored.
# The mpi component's partitioners travel as libraries too (METIS, Scotch: Debian 12's build for
# glibc 2.36, which the GPU machine's newer glibc runs); MPI itself is the machine's own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
rm -rf "$deps"
mkdir -p "$deps/include" "$deps/lib/cmake" "$deps/lib/x86_64-linux-gnu/cmake"

"$root/tools/install_deps.sh" --tests
multiarch=/usr/lib/x86_64-linux-gnu
cp -r /usr/include/cereal /usr/include/fmt /usr/include/catch2 "$deps/include/"
cp /usr/include/xxhash.h /usr/include/xxh3.h "$deps/include/"
cp -r "$multiarch/cmake/cereal" "$multiarch/cmake/fmt" "$deps/lib/x86_64-linux-gnu/cmake/"
cp -r /usr/lib/cmake/Catch2 "$deps/lib/cmake/"
# parloop links fmt's library; Catch2's package file checks that the library it names exists,
# although the tests have their own main.
cp -a "$multiarch"/libfmt.so* "$deps/lib/x86_64-linux-gnu/"
cp /usr/lib/libCatch2WithMain.a "$deps/lib/"
cp /usr/include/metis.h "$deps/include/"
cp -r /usr/include/scotch "$deps/include/"
cp -a "$multiarch"/libmetis.so* "$multiarch"/libscotch.so "$multiarch"/libscotch-7.0*.so "$multiarch"/libscotcherr.so \
  "$multiarch"/libscotcherr-7.0*.so "$deps/lib/x86_64-linux-gnu/"
# HDF5: Debian's serial library (the programs' ranks read their blocks each on its own; MPI-IO is
# not used), its headers under hdf5/ (HDF5_ROOT), and every library it links but glibc's and
# MPI's, in hdf5/runtime/: benchmarks/run_gpu.sh puts on the programs' path only those the machine
# lacks, so that its own (which CMake and the compilers load) are never shadowed.
mkdir -p "$deps/hdf5/include" "$deps/hdf5/lib" "$deps/hdf5/runtime"
cp -r /usr/include/hdf5/serial/. "$deps/hdf5/include/"
cp -a "$multiarch"/libhdf5_serial.so.* "$deps/hdf5/runtime/"
ln -s ../runtime/"$(basename "$(readlink -f "$multiarch/libhdf5_serial.so")")" "$deps/hdf5/lib/libhdf5.so"
ldd "$multiarch/libhdf5_serial.so" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libresolv.so* | ld-linux*) ;;
    libmpi* | libopen-* | libhwloc* | libevent*) ;;
    *) cp -L "$lib" "$deps/hdf5/runtime/" ;;
  esac
done
du -sh "$deps"
