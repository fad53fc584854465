#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Airfoil (examples/airfoil) on a mesh in its generator's numbering and on the same mesh numbered
# at random (benchmarks/shuffle_mesh), each with the loops renumbered for locality (the example's
# default, pl::renumber) and without (--no-renumber), on each backend given, in one run: the four
# variants take turns, three rounds, and each figure is the median. Every variant's last rms must
# agree with the others' to 1e-9 (sums in another order), or the script fails.
# Issue 28's goals: random renumbered / generated as generated <= 1.1; generated renumbered /
# generated as generated <= 1.0.
# GRID=o generates an O-grid instead of the C-mesh (airfoil --grid o); AIRFOIL_OPTIONS are passed
# to every run (--autotune, say). ORDERS="rcm hilbert scotch" adds, for each, the random mesh
# written in that order by benchmarks/order_mesh and run as given: which order wins.
# A backend written mpiN:BACKEND runs airfoil_mpi on N ranks (mpirun -np N), each rank ordering
# its share for locality or, with --no-renumber, keeping it in global order.
# Usage: benchmarks/renumber_airfoil.sh BUILD_DIR CELLS ITERATIONS BACKEND...
#   (BUILD_DIR configured with -DPARLOOP_BUILD_BENCHMARKS=ON: airfoil and shuffle_mesh built;
#   order_mesh too for ORDERS; airfoil_mpi for mpiN:BACKEND, launched by Open MPI's mpirun)
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BUILD_DIR CELLS ITERATIONS BACKEND..." >&2; exit 2; }
build=$1 cells=$2 iterations=$3
shift 3
airfoil="$build/examples/airfoil/airfoil"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$airfoil" --size "$cells" --grid "${GRID:-c}" --iterations 0 --write-mesh "$work/generated.dat" >/dev/null 2>&1
"$build/benchmarks/shuffle_mesh" "$work/generated.dat" "$work/random.dat"

variants=("generated renumbered" "generated as-given" "random renumbered" "random as-given")
for by in ${ORDERS:-}; do
  "$build/benchmarks/order_mesh" "$work/random.dat" "$work/random-$by.dat" --by "$by" >/dev/null
  variants+=("random-$by as-given")
done
for backend in "$@"; do
  program=("$airfoil")
  on=$backend
  if [[ $backend =~ ^mpi([0-9]+):(.+)$ ]]; then
    program=(mpirun -np "${BASH_REMATCH[1]}" --oversubscribe --bind-to none "$build/examples/airfoil/airfoil_mpi")
    on=${BASH_REMATCH[2]}
  fi
  declare -A times=()
  for round in 1 2 3; do
    for v in "${variants[@]}"; do
      read -r mesh how <<<"$v"
      option=()
      [ "$how" = as-given ] && option=(--no-renumber)
      PARLOOP_BACKEND=$on "${program[@]}" --mesh "$work/$mesh.dat" --iterations "$iterations" --digits 12 \
        "${option[@]}" ${AIRFOIL_OPTIONS:-} >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
      times[$v]+="$(sed -n 's/.*(\([0-9.]*\) ms each).*/\1/p' "$work/err") "
      # The history's last line (a line comparing with OP2's figure may follow it).
      awk '$1 ~ /^[0-9]+$/ { rms = $2 } END { print rms }' "$work/out" >"$work/rms-$mesh-$how"
    done
  done
  median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | sed -n 2p; }
  reference=$(cat "$work/rms-generated-as-given")
  echo "Airfoil on $backend, $cells cells (${GRID:-c} grid), $iterations iterations${AIRFOIL_OPTIONS:+, $AIRFOIL_OPTIONS}: ms per iteration (median of 3 rounds), last rms"
  for v in "${variants[@]}"; do
    read -r mesh how <<<"$v"
    rms=$(cat "$work/rms-$mesh-$how")
    awk -v a="$rms" -v b="$reference" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b)) }' ||
      { echo "WRONG: $backend $v: rms $rms against $reference" >&2; exit 1; }
    printf '  %-14s %-11s %10s ms   rms %s\n' "$mesh" "$how" "$(median "${times[$v]}")" "$rms"
  done
  base=$(median "${times[generated as-given]}")
  awk -v r="$(median "${times[random renumbered]}")" -v g="$(median "${times[generated renumbered]}")" \
      -v x="$(median "${times[random as-given]}")" -v b="$base" -v backend="$backend" 'BEGIN {
    printf "renumber on %s: random renumbered / generated as generated %.3f (goal <= 1.1); generated renumbered / as generated %.3f (goal <= 1.0); random as given %.3f\n", backend, r / b, g / b, x / b }'
  for by in ${ORDERS:-}; do
    awk -v o="$(median "${times[random-$by as-given]}")" -v b="$base" -v by="$by" -v backend="$backend" \
      'BEGIN { printf "order on %s: random ordered by %s / generated as generated %.3f\n", backend, by, o / b }'
  done
  unset times
done
