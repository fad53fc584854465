#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds parloop's examples and runs the main one (jacobi) on
# the best available backend (PARLOOP_BACKEND overrides).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DPARLOOP_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j "$(nproc)"
"$root/build/examples/jacobi/jacobi"
