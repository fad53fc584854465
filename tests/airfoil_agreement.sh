#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Airfoil's rms history on the backend PARLOOP_BACKEND names, with the DSL kernels and (on a
# device) with OP2's C kernels, against the host backend's (the reference), on a small generated mesh; and
# the same mesh written in OP2's layout and read back gives the host the same history, bit for
# bit, and so does it converted to OP2's HDF5 layout, where 150 iterations restarted from a
# checkpoint of the first 150 end where 300 do; autotuned (--autotune), the device's history is the host's too; and so is the host's with the
# mesh left in its own order (--no-renumber); and the device's with its rms read back after each
# step (--read-each-step, as an OP2 application must). Devices add increments
# through maps in another order (atomics) and may fuse multiply-adds: the histories agree to 1e-9
# relative (measured: about 1e-11).
# Usage: airfoil_agreement.sh <airfoil program>
set -euo pipefail
program=$1
# shellcheck source=airfoil_common.sh
source "$(dirname "$0")/airfoil_common.sh"

# Only the history: the first line names the device.
history() {
  local out=$1; shift
  local options=("${size[@]}")
  [[ " $* " == *" --mesh "* ]] && options=("${run[@]}")
  if ! "$program" "${options[@]}" "$@" >"$out.full" 2>"$out.err"; then
    if grep -q "is not available\|no CUDA driver\|no OpenCL" "$out.err"; then
      echo "skipped: $(head -1 "$out.err")"
      exit 77
    fi
    fail "$program $*: $(cat "$out.err")"
  fi
  tail -n +2 "$out.full" >"$out"
  [ "$(wc -l <"$out")" -eq 3 ] || fail "$program $*: expected 3 lines of history: $(cat "$out.full")"
}

# The device's runs first: a backend this machine lacks skips the test at once.
for kernels in "${kernels_here[@]}"; do
  history "$work/$kernels" --kernels "$kernels"
done
# Autotuned: each loop's candidates run from the same values before it runs once as the winner.
history "$work/tuned" --autotune
history "$work/each_step" --read-each-step

PARLOOP_BACKEND=host history "$work/host" --write-mesh "$work/mesh.dat"
PARLOOP_BACKEND=host history "$work/host_from_file" --mesh "$work/mesh.dat"
cmp -s "$work/host" "$work/host_from_file" ||
  fail "the mesh read back gives another history: $(diff "$work/host" "$work/host_from_file")"
echo "host: the written mesh read back gives the same history, bit for bit"
# Converted to OP2's HDF5 layout (where the program reads HDF5), the same history again.
if PARLOOP_BACKEND=host "$program" --mesh "$work/mesh.dat" --iterations 0 --write-mesh "$work/mesh.h5" \
  >/dev/null 2>"$work/convert.err"; then
  PARLOOP_BACKEND=host history "$work/host_from_hdf5" --mesh "$work/mesh.h5"
  cmp -s "$work/host" "$work/host_from_hdf5" ||
    fail "the mesh converted to HDF5 gives another history: $(diff "$work/host" "$work/host_from_hdf5")"
  echo "host: the mesh converted to HDF5 and read back gives the same history, bit for bit"
  # Half the iterations, a checkpoint, and the other half restarted from it: the same last rms.
  PARLOOP_BACKEND=host "$program" --mesh "$work/mesh.h5" --iterations 150 --digits 15 \
    --checkpoint "$work/half.h5" >/dev/null 2>"$work/half.err" || fail "checkpointing: $(cat "$work/half.err")"
  restarted=$(PARLOOP_BACKEND=host "$program" --mesh "$work/mesh.h5" --iterations 150 --digits 15 \
    --restart "$work/half.h5" 2>"$work/restart.err" | tail -1) || fail "restarting: $(cat "$work/restart.err")"
  [ "${restarted#* 150 }" = "$(tail -1 "$work/host" | sed 's/^ *300 //')" ] ||
    fail "restarted at 150: '$restarted'; uninterrupted at 300: '$(tail -1 "$work/host")'"
  echo "host: 150 iterations restarted from a checkpoint end where 300 do, bit for bit"
else
  grep -q "built without HDF5" "$work/convert.err" || fail "converting the mesh to HDF5: $(cat "$work/convert.err")"
  echo "host: no HDF5 in this build: $(cat "$work/convert.err")"
fi
# The loops in the mesh's own order (not renumbered for locality): sums in another order only.
PARLOOP_BACKEND=host history "$work/host_unrenumbered" --no-renumber
awk -v tolerance=1e-9 -f "$awk_script" "$work/host" "$work/host_unrenumbered" ||
  fail "the host without renumbering: $(paste "$work/host" "$work/host_unrenumbered")"
echo "host, --no-renumber: the renumbered history to 1e-9"

for kernels in "${kernels_here[@]}"; do
  awk -v tolerance=1e-9 -f "$awk_script" "$work/host" "$work/$kernels" ||
    fail "$backend with the $kernels kernels against the host: $(paste "$work/host" "$work/$kernels")"
  echo "$backend, $kernels kernels: the host's history to 1e-9"
done
awk -v tolerance=1e-9 -f "$awk_script" "$work/host" "$work/tuned" ||
  fail "$backend autotuned against the host: $(paste "$work/host" "$work/tuned")"
echo "$backend, autotuned: the host's history to 1e-9"
awk -v tolerance=1e-9 -f "$awk_script" "$work/host" "$work/each_step" ||
  fail "$backend reading the rms each step against the host: $(paste "$work/host" "$work/each_step")"
echo "$backend, --read-each-step: the host's history to 1e-9"
paste "$work/host" "${kernels_here[@]/#/$work/}" "$work/tuned"
