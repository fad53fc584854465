#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, then builds and runs the whole test suite twice: a plain build,
# and one under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$root/tools/install_deps.sh"

# run_suite <build dir> "<ctest options>" <cmake options...>
run_suite() {
  local dir=$1 ctest_options=$2
  shift 2
  cmake -S "$root" -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  # shellcheck disable=SC2086
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" $ctest_options
}

run_suite "$root/build-test" "" -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Under the sanitizers the OpenCL path runs through test_device_loops_opencl; the host matrix again on
# OpenCL (hundreds of device compiles, minutes on two cores) runs in the plain build only.
run_suite "$root/build-sanitize" "-E test_host_loops_opencl" -DCMAKE_BUILD_TYPE=Debug -DPARLOOP_SANITIZE=ON
