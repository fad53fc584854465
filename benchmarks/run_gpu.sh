#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole GPU run, on a machine with an NVIDIA GPU: configure against the carried
# dependencies (tools/carry_deps.sh fills .deps/ beforehand), build, run the GPU tests, then
# the whole suite. Logs go to $OUT (or ./gpu-run). Usage: benchmarks/run_gpu.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-run}
mkdir -p "$out"
build="$root/build-gpu"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvcc --version | tail -2
} 2>&1 | tee "$out/machine.txt"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARLOOP_BUILD_BENCHMARKS=ON -DCMAKE_PREFIX_PATH="$root/.deps" \
  >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }

status=0
ctest --test-dir "$build" -L gpu -V 2>&1 | tee "$out/ctest-gpu.log" || status=1
ctest --test-dir "$build" -LE gpu -j "$(nproc)" --output-on-failure >"$out/ctest-all.log" 2>&1 || status=1
tail -15 "$out/ctest-all.log"

# Benchmarks: parloop against hand-written code, on every OpenCL device of the machine.
if [ -x "$build/benchmarks/bench_opencl" ]; then
  # "Platform #P: ..." then " `-- Device #D: ..." lines become P:D.
  for dev in $(clinfo -l 2>/dev/null | sed -n 's/^Platform #\([0-9]*\).*/P \1/p; s/.*Device #\([0-9]*\).*/D \1/p' |
               awk '$1 == "P" {p = $2} $1 == "D" {print p ":" $2}'); do
    PARLOOP_OPENCL_DEVICE=$dev "$build/benchmarks/bench_opencl" 24 2>&1 | tee "$out/bench-opencl-${dev/:/-}.txt" || status=1
  done
fi
exit $status
