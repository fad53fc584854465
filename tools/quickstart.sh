#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds parloop's examples and runs the main one, OP2's Airfoil, on
# the best available backend (PARLOOP_BACKEND overrides): on a small mesh, which a CPU runs in
# seconds. build/examples/airfoil/airfoil without options runs OP2's size (720000 cells).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DPARLOOP_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j "$(nproc)"
"$root/build/examples/airfoil/airfoil" --size 30000 --iterations 500
