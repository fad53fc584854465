#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An example run twice in fresh processes on one empty disk cache, with PARLOOP_STATS=1: the
# first run compiles its kernels, the second compiles none and loads each from the disk, and
# both print the same results. The backend is the environment's PARLOOP_BACKEND.
# Usage: example_second_run.sh <program> [arguments...]
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PARLOOP_CACHE=on PARLOOP_CACHE_DIR="$work/cache" PARLOOP_STATS=1
fail() { echo "FAILED: $*"; exit 1; }

for run in 1 2; do
  if ! "$@" >"$work/out$run.txt" 2>"$work/err$run.txt"; then
    if grep -q "is not available\|no CUDA driver\|no OpenCL" "$work/err$run.txt"; then
      echo "skipped: $(head -1 "$work/err$run.txt")"
      exit 77
    fi
    fail "run $run: $(cat "$work/out$run.txt" "$work/err$run.txt")"
  fi
  cat "$work/err$run.txt"
done

stats_line() { grep "^parloop stats: " "$work/err$1.txt" || fail "run $1 printed no stats: $(cat "$work/err$1.txt")"; }
first=$(stats_line 1)
second=$(stats_line 2)
[[ $first =~ ^parloop\ stats:\ compiled=([1-9][0-9]*)\ disk_hits=0\ memory_hits=([0-9]+)\ launches=([0-9]+)$ ]] ||
  fail "first run: $first"
kernels=${BASH_REMATCH[1]} memory_hits=${BASH_REMATCH[2]} launches=${BASH_REMATCH[3]}
# What the first run compiled, the second loads; the rest is the same.
[[ $second == "parloop stats: compiled=0 disk_hits=$kernels memory_hits=$memory_hits launches=$launches" ]] ||
  fail "second run: $second (the first: $first)"
# The table has a row for each kernel, with its calls.
[ "$(grep -cE '^  [A-Za-z_][A-Za-z0-9_]* +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$work/err2.txt")" -ge 1 ] ||
  fail "second run's table: $(cat "$work/err2.txt")"
# The same words, and numbers equal to 1e-12 relative to 1: increments through maps are atomic
# and their order, so the last bits of a sum, varies between runs.
same_results() { awk -v tolerance=1e-12 -v relative_to_one=1 -f "$(dirname "$0")/same_numbers.awk" "$1" "$2"; }
same_results "$work/out1.txt" "$work/out2.txt" ||
  fail "the two runs printed different results: $(diff "$work/out1.txt" "$work/out2.txt")"
echo "second run: compiled=0, $kernels kernels from the disk cache, the same results (to 1e-12)"
