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
du -sh "$deps"
