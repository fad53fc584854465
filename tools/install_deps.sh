#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs, from Debian's packages, whatever parloop's build needs and this machine lacks;
# with --tests, also what the test suite's fuzz step needs (clang and its libFuzzer), the mpi
# component's libraries, parallel HDF5 and h5py (the files' tests) and clang-format 14, which
# the code's layout is checked with.
set -euo pipefail

packages=(cmake g++ libcereal-dev libfmt-dev libxxhash-dev catch2 ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libhdf5-dev)
# The tests also build the mpi component (Open MPI, METIS and Scotch), with Ninja.
if [ "${1:-}" = "--tests" ]; then
  packages+=(clang clang-format-14 libclang-rt-14-dev libopenmpi-dev openmpi-bin libmetis-dev libscotch-dev ninja-build
    libhdf5-openmpi-dev python3-h5py)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "parloop: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
