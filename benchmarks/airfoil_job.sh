#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A whole Airfoil job, process start to exit, by phase: start-up (to main), the mesh read, the
# runtime opened, the mesh declared and renumbered, the first step (its kernels compiled, or
# loaded from the disk cache), the loops, and teardown (main's end to the process's exit) --
# with a cold disk cache and then a warm one, on the backend PARLOOP_BACKEND names. The job
# minus its loops is what a user waits for besides the computation (issue 51).
# Usage: airfoil_job.sh <airfoil program> <mesh file (.dat or .h5)> [iterations (1000)] [runs (3)]
set -euo pipefail
program=$1 mesh=$2 iterations=${3:-1000} runs=${4:-3}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export PARLOOP_CACHE_DIR="$cache"

# One job: its phases, from the program's --phases line and the times around the process.
job() {
  local began ended line
  began=$(date +%s.%N)
  line=$("$program" --mesh "$mesh" --iterations "$iterations" --phases 2>&1 >/dev/null | grep '^airfoil phases:')
  ended=$(date +%s.%N)
  echo "$line" | awk -v began="$began" -v ended="$ended" '{
    for (i = 3; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2]; names[i] = kv[1] }
    printf "start-up %.3f", v["main_began"] - began
    for (i = 4; i < NF; ++i) printf "  %s %.3f", names[i], v[names[i]]
    printf "  teardown %.3f  total %.3f  total-loops %.3f\n", ended - v["main_ended"], ended - began,
           ended - began - v["loops"]
  }'
}

echo "airfoil job: $mesh, $iterations iterations, ${PARLOOP_BACKEND:-the best backend}, seconds"
echo "cold disk cache: $(job)"
for ((r = 1; r <= runs; ++r)); do echo "warm disk cache: $(job)"; done
