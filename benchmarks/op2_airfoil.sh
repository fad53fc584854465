#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Airfoil written against OP2's API (examples/op2/airfoil, airfoil_op2) against the native
# example with the same C kernels (airfoil --kernels c) and with the DSL's, on one generated mesh
# written in OP2's layout, in one run; and the native example with C kernels reading its rms back
# after each step (--read-each-step), as the OP2 application must: what OP2's semantics cost,
# apart from what the front end costs. Each program's own timer covers different one-time work
# (airfoil_op2's renumbers the mesh at its first loop, inside OP2's timed loop; the native
# example before its timer), so each runs ITERATIONS and 2 x ITERATIONS iterations: the
# difference over ITERATIONS is its time per iteration in a long run, and what is left its
# one-time cost. Each once to fill the disk cache, then RUNS rounds of the three in turn, the
# best of each; airfoil_op2's time per iteration over the native C kernels' (the goal: at most
# 1.05).
# Usage: benchmarks/op2_airfoil.sh <build dir> [cells (720000)] [iterations (1000)] [backend (cuda)]
set -euo pipefail
build=$1 cells=${2:-720000} iterations=${3:-1000} backend=${4:-cuda}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
native="$build/examples/airfoil/airfoil"
op2="$build/examples/op2/airfoil/airfoil_op2"
export PARLOOP_BACKEND=$backend
"$native" --size "$cells" --iterations 1 --write-mesh "$work/mesh.dat" >/dev/null 2>&1

# The seconds of one run of `iterations`, from the program's own "N iterations in S s" line.
run() {
  local name=$1 n=$2
  case $name in
    native_c) set -- "$native" --mesh "$work/mesh.dat" --iterations "$n" --kernels c --digits 12 ;;
    native_dsl) set -- "$native" --mesh "$work/mesh.dat" --iterations "$n" --digits 12 ;;
    native_c_waits) set -- "$native" --mesh "$work/mesh.dat" --iterations "$n" --kernels c --digits 12 --read-each-step ;;
    op2) set -- "$op2" "$work/mesh.dat" "$n" 12 ;;
  esac
  "$@" >"$work/$name.out" 2>"$work/$name.err" || { echo "$name failed: $(cat "$work/$name.err")" >&2; exit 1; }
  grep -E "^ $n " "$work/$name.out" | awk '{print $2}' >"$work/$name.rms.$n"
  sed -n 's/.* iterations in \([0-9.]*\) s.*/\1/p' "$work/$name.err"
}
programs=(native_c native_dsl native_c_waits op2)
declare -A best_short best_long
for p in "${programs[@]}"; do run "$p" "$iterations" >/dev/null; done
for round in $(seq 1 "$runs"); do
  for p in "${programs[@]}"; do
    for n in "$iterations" $((2 * iterations)); do
      t=$(run "$p" "$n")
      if [ "$n" = "$iterations" ]; then
        if [ -z "${best_short[$p]:-}" ] || awk -v a="$t" -v b="${best_short[$p]}" 'BEGIN { exit !(a < b) }'; then best_short[$p]=$t; fi
      elif [ -z "${best_long[$p]:-}" ] || awk -v a="$t" -v b="${best_long[$p]}" 'BEGIN { exit !(a < b) }'; then
        best_long[$p]=$t
      fi
    done
  done
done
head -1 "$work/native_c.out"
declare -A per_iteration
for p in "${programs[@]}"; do
  per_iteration[$p]=$(awk -v s="${best_short[$p]}" -v l="${best_long[$p]}" -v n="$iterations" 'BEGIN { printf "%.9f", (l - s) / n }')
  awk -v s="${best_short[$p]}" -v t="${per_iteration[$p]}" -v n="$iterations" -v p="$p" -v rms="$(cat "$work/$p.rms.$iterations")" \
    'BEGIN { printf "%-14s %.4f ms per iteration, %.3f s once (in its timer); rms after %d: %s\n", p, 1e3 * t, s - n * t, n, rms }'
done
awk -v o="${per_iteration[op2]}" -v c="${per_iteration[native_c]}" -v d="${per_iteration[native_dsl]}" \
  -v w="${per_iteration[native_c_waits]}" -v b="$backend" -v n="$cells" \
  'BEGIN { printf "op2 airfoil on %s, %d cells: %.3fx the native example with C kernels (%.3fx its DSL kernels; %.3fx the C kernels reading the rms each step, as OP2 does) per iteration\n", b, n, o / c, o / d, o / w }'
