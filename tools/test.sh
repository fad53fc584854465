#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, then builds and runs the whole test suite twice: a plain build,
# and one under AddressSanitizer + UndefinedBehaviorSanitizer (the MPI tests on 2 ranks); then
# the tests of threads and the threads backend's loop matrix under ThreadSanitizer, and fuzzes
# the disk cache's entry reader (two processes for 30 s; clang++ and its libFuzzer needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$root/tools/install_deps.sh" --tests

# configure <build dir> <cmake options...>
# With Ninja, which starts the units in the order tests/CMakeLists.txt gives them, the longest
# first (Make's order left the longest, test_host_loops, compiling alone at the end: minutes
# under ASan). A folder this script configured with Make before is configured afresh.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q "^CMAKE_GENERATOR:INTERNAL=Ninja$" "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -G Ninja -S "$root" -B "$dir" "$@" >/dev/null
}

# run_suite <build dir> "<ctest options>" <cmake options...>
run_suite() {
  local dir=$1 ctest_options=$2
  shift 2
  configure "$dir" "$@"
  cmake --build "$dir" -j "$jobs"
  # shellcheck disable=SC2086
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" $ctest_options
}

# Release as users build, without debug information (a third of the compile time), with the
# compiled library (PARLOOP_COMPILED); the sanitized builds below are header-only, as a program
# gets parloop by default, so that every test runs in both modes. The examples, which run here as
# tests on small meshes, at -O1 (PARLOOP_EXAMPLES_O1: half their compile time).
run_suite "$root/build-test" "" -DCMAKE_BUILD_TYPE=Release -DPARLOOP_COMPILED=ON -DPARLOOP_EXAMPLES_O1=ON
# Header-only under the sanitizers. The OpenCL path runs through test_device_loops_opencl; the host matrix again on
# OpenCL (hundreds of device compiles, minutes on two cores) runs in the plain build only.
# LeakSanitizer's tracer now and then crashes at exit while PoCL's worker threads run ("Tracer
# caught signal 11", after every assertion passed): a test that fails runs once more.
# The plain run compiled every kernel of the suite with PoCL and NVRTC: this one does not again.
# Line tables only (-g1): the reports' lines, without the rest of the debug information.
# PoCL's and LLVM's own leaks are suppressed (tests/lsan.supp).
# The examples and the cache tool are the library's code, which the tests run here; their own
# lines (a main, argument parsing) run in the plain build: not built again (minutes of CI).
PARLOOP_TEST_COMPILE_KERNELS=0 LSAN_OPTIONS="suppressions=$root/tests/lsan.supp" \
  run_suite "$root/build-sanitize" "-E test_host_loops_opencl --repeat until-pass:2" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DPARLOOP_SANITIZE=ON -DPARLOOP_COMPILED=OFF -DPARLOOP_BUILD_EXAMPLES=OFF -DPARLOOP_BUILD_TOOLS=OFF
# ThreadSanitizer over the tests where threads share kernels, the disk cache and runtimes (the
# kernel and disk cache tests, on the host and on PoCL) and over the threads backend's loops:
# only those are built (PARLOOP_TSAN), header-only. The plain run compiled their kernels.
PARLOOP_TEST_COMPILE_KERNELS=0 run_suite "$root/build-tsan" "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPARLOOP_TSAN=ON -DPARLOOP_BUILD_EXAMPLES=OFF \
  -DPARLOOP_BUILD_TOOLS=OFF
# The disk cache's entry reader under libFuzzer (clang only): the one fuzz target, fuzzed for 30
# seconds by two processes (tests/fuzz); the rest of the suite is configured but not built.
configure "$root/build-fuzz" -DCMAKE_CXX_COMPILER=clang++ -DPARLOOP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$root/build-fuzz" -j "$jobs" --target fuzz_disk_entry
ctest --test-dir "$root/build-fuzz" --output-on-failure -L fuzz
