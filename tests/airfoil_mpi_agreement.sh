#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Airfoil over MPI ranks (airfoil_mpi under mpirun -np N, on the backend PARLOOP_BACKEND names)
# against one process on the host backend (the reference), on a small generated mesh: the rms
# history agrees to 1e-9 relative. Not bit for bit: each rank adds a cell's increments in its own
# order (core edges first, then the rest) and the rms is summed rank by rank. The ranks order their
# shares for locality by default; with --no-renumber (global order) the history is the same too.
# Where airfoil_mpi reads HDF5, the ranks read the mesh converted to it, checkpoint after 150
# iterations and restart from the checkpoint for 150 more, ending where one process's 300 do.
# Usage: airfoil_mpi_agreement.sh <airfoil> <airfoil_mpi> <ranks> <mpiexec> [mpiexec flags...]
set -euo pipefail
serial=$1 distributed=$2 ranks=$3 mpiexec=$4
shift 4
# shellcheck source=airfoil_common.sh
source "$(dirname "$0")/airfoil_common.sh"

kernels=("${kernels_here[@]}")
# The distributed runs first: a backend this machine lacks skips the test at once.
for k in "${kernels[@]}"; do
  if ! "$mpiexec" -np "$ranks" "$@" "$distributed" "${size[@]}" --kernels "$k" >"$work/$k.full" 2>"$work/$k.err"; then
    if grep -q "is not available\|no CUDA driver\|no OpenCL" "$work/$k.err"; then
      echo "skipped: $(grep -m1 "is not available\|no CUDA driver\|no OpenCL" "$work/$k.err")"
      exit 77
    fi
    fail "$mpiexec -np $ranks $distributed --kernels $k: $(cat "$work/$k.err")"
  fi
  grep -q "$ranks MPI ranks" "$work/$k.full" || fail "not on $ranks ranks: $(head -1 "$work/$k.full")"
  tail -n +2 "$work/$k.full" >"$work/$k"
done
# Each rank's share in global order rather than ordered for locality: sums in another order only.
"$mpiexec" -np "$ranks" "$@" "$distributed" "${size[@]}" --kernels "${kernels[0]}" --no-renumber \
  >"$work/global_order.full" 2>"$work/global_order.err" ||
  fail "$mpiexec -np $ranks $distributed --no-renumber: $(cat "$work/global_order.err")"
tail -n +2 "$work/global_order.full" >"$work/global_order"
PARLOOP_BACKEND=host "$serial" "${size[@]}" >"$work/serial.full" 2>"$work/serial.err" ||
  fail "$serial: $(cat "$work/serial.err")"
tail -n +2 "$work/serial.full" >"$work/serial"
for k in "${kernels[@]}"; do
  awk -v tolerance=1e-9 -f "$awk_script" "$work/serial" "$work/$k" ||
    fail "$ranks ranks on $backend, $k kernels, against one process: $(paste "$work/serial" "$work/$k")"
  echo "$ranks ranks on $backend, $k kernels: the serial history to 1e-9"
done
awk -v tolerance=1e-9 -f "$awk_script" "$work/serial" "$work/global_order" ||
  fail "$ranks ranks in global order against one process: $(paste "$work/serial" "$work/global_order")"
echo "$ranks ranks on $backend in global order (--no-renumber): the serial history to 1e-9"
paste "$work/serial" "$work/${kernels[0]}"
# The ranks on the mesh in HDF5, checkpointed half way and restarted (the build may lack HDF5).
if PARLOOP_BACKEND=host "$serial" "${size[@]}" --iterations 0 --write-mesh "$work/mesh.h5" >/dev/null 2>"$work/h5.err"; then
  common=(--mesh "$work/mesh.h5" --iterations 150 --digits 15 --kernels "${kernels[0]}")
  "$mpiexec" -np "$ranks" "$@" "$distributed" "${common[@]}" --checkpoint "$work/half.h5" >/dev/null \
    2>"$work/half.err" || fail "$ranks ranks checkpointing: $(cat "$work/half.err")"
  "$mpiexec" -np "$ranks" "$@" "$distributed" "${common[@]}" --restart "$work/half.h5" >"$work/restart.full" \
    2>"$work/restart.err" || fail "$ranks ranks restarting: $(cat "$work/restart.err")"
  tail -1 "$work/restart.full" | sed 's/^ *150 / 300 /' >"$work/restart"
  awk -v tolerance=1e-9 -f "$awk_script" <(tail -1 "$work/serial") "$work/restart" ||
    fail "$ranks ranks restarted from a checkpoint: $(cat "$work/restart") against $(tail -1 "$work/serial")"
  echo "$ranks ranks from HDF5, checkpointed at 150 and restarted: one process's 300th rms to 1e-9"
else
  grep -q "built without HDF5" "$work/h5.err" || fail "converting the mesh to HDF5: $(cat "$work/h5.err")"
fi
