#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OP2-API examples on the backend PARLOOP_BACKEND names: Airfoil's rms history against the
# native Airfoil's on the host (the reference), on a mesh the native one writes in OP2's layout,
# to 1e-9 relative (devices add increments through maps in another order); run twice on one
# empty disk cache, the second run compiles nothing. Jacobi checks its own values against plain
# loops and prints from a kernel. With AIRFOIL_OP2_HDF5 set, OP2's HDF5 Airfoil on the same mesh
# converted to OP2's HDF5 layout prints airfoil_op2's history and checksum.
# Usage: op2_examples.sh <airfoil> <airfoil_op2> <jacobi_op2>
set -euo pipefail
native=$1 airfoil_op2=$2 jacobi_op2=$3
backend=${PARLOOP_BACKEND:?PARLOOP_BACKEND names the backend under test}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
skip_if_absent() {
  if grep -q "is not available\|no CUDA driver\|no OpenCL" "$1"; then
    echo "skipped: $(head -1 "$1")"
    exit 77
  fi
}

# The OP2 application first: a backend this machine lacks skips the test at once.
export PARLOOP_CACHE=on PARLOOP_CACHE_DIR="$work/cache" PARLOOP_STATS=1
PARLOOP_BACKEND=host "$native" --size 2000 --iterations 300 --digits 15 --write-mesh "$work/mesh.dat" \
  >"$work/native.full" 2>"$work/native.err" || fail "native airfoil: $(cat "$work/native.err")"
tail -n +2 "$work/native.full" >"$work/native"
for run in 1 2; do
  if ! "$airfoil_op2" "$work/mesh.dat" 300 15 >"$work/op2.$run" 2>"$work/op2.$run.err"; then
    skip_if_absent "$work/op2.$run.err"
    fail "airfoil_op2, run $run: $(cat "$work/op2.$run.err")"
  fi
  grep -E '^ [0-9]+  ' "$work/op2.$run" >"$work/history.$run" || true
  [ "$(wc -l <"$work/history.$run")" -eq 3 ] || fail "airfoil_op2, run $run: expected 3 lines of history: $(cat "$work/op2.$run")"
  awk -v tolerance=1e-9 -f "$(dirname "$0")/same_numbers.awk" "$work/native" "$work/history.$run" ||
    fail "airfoil_op2 on $backend, run $run, against the native host: $(paste "$work/native" "$work/history.$run")"
done
echo "airfoil_op2 on $backend: the native host's history to 1e-9"
paste "$work/native" "$work/history.1"
case $backend in
  host | threads) ;;
  *)
    second=$(grep "^parloop stats: " "$work/op2.2.err") || fail "no stats: $(cat "$work/op2.2.err")"
    [[ $second =~ ^parloop\ stats:\ compiled=0\ disk_hits=5\  ]] || fail "the second run: $second"
    echo "airfoil_op2, second run: $second"
    ;;
esac

if [ -n "${AIRFOIL_OP2_HDF5:-}" ]; then
  PARLOOP_BACKEND=host "$native" --mesh "$work/mesh.dat" --iterations 0 --write-mesh "$work/mesh.h5" >/dev/null ||
    fail "the native airfoil could not convert its mesh to HDF5"
  "$AIRFOIL_OP2_HDF5" "$work/mesh.h5" 300 15 "" "$work/dump.h5" >"$work/hdf5" 2>"$work/hdf5.err" ||
    fail "airfoil_op2_hdf5: $(cat "$work/hdf5" "$work/hdf5.err")"
  # Its dump (op_dump_to_hdf5 and op_write_const_hdf5) read back as the mesh gives the same run.
  "$AIRFOIL_OP2_HDF5" "$work/dump.h5" 300 15 >"$work/dump" 2>"$work/dump.err" ||
    fail "airfoil_op2_hdf5 on its dump: $(cat "$work/dump" "$work/dump.err")"
  cmp -s <(grep -E '^ [0-9]+  | q checksum ' "$work/hdf5") <(grep -E '^ [0-9]+  | q checksum ' "$work/dump") ||
    fail "airfoil_op2_hdf5 on its dump: $(paste "$work/hdf5" "$work/dump")"
  grep -q "^m_test not found$" "$work/hdf5" || fail "airfoil_op2_hdf5 did not report m_test: $(cat "$work/hdf5")"
  for run in 1 hdf5; do grep -E '^ [0-9]+  | q checksum ' "$work/$([ $run = 1 ] && echo op2.1 || echo hdf5)" \
    >"$work/numbers.$run" || true; done
  [ "$(wc -l <"$work/numbers.hdf5")" -eq 4 ] || fail "airfoil_op2_hdf5: expected 4 lines: $(cat "$work/hdf5")"
  awk -v tolerance=1e-9 -f "$(dirname "$0")/same_numbers.awk" "$work/numbers.1" "$work/numbers.hdf5" ||
    fail "airfoil_op2_hdf5 against airfoil_op2: $(paste "$work/numbers.1" "$work/numbers.hdf5")"
  echo "airfoil_op2_hdf5 on $backend: airfoil_op2's history and checksum to 1e-9"
fi

"$jacobi_op2" 24 150 >"$work/jacobi" 2>"$work/jacobi.err" || fail "jacobi_op2: $(cat "$work/jacobi" "$work/jacobi.err")"
grep -q -- "-> ok$" "$work/jacobi" || fail "jacobi_op2: $(cat "$work/jacobi")"
grep -q "u at the centre (node 300) = " "$work/jacobi" || fail "jacobi_op2's kernel printed nothing: $(cat "$work/jacobi")"
grep -E "centre|-> ok" "$work/jacobi"
