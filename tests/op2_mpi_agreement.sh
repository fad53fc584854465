#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OP2-API Airfoil over MPI ranks (airfoil_op2_mpi: each rank declares its block, then
# op_partition) on the backend PARLOOP_BACKEND names, against airfoil_op2 in one process on the
# host (the reference), on a mesh the native example writes: the rms history and the checksum of
# the final state read back in the declared numbering (op_fetch_data_idx) agree to 1e-9 relative
# (each rank adds a cell's increments in its own order). With AIRFOIL_OP2_HDF5_MPI set (OP2's HDF5
# Airfoil over ranks), the same on the mesh converted to OP2's HDF5 layout, each rank reading its
# block of the file.
# Usage: op2_mpi_agreement.sh <airfoil> <airfoil_op2> <airfoil_op2_mpi> <ranks> <mpiexec> [mpiexec flags...]
set -euo pipefail
native=$1 serial=$2 distributed=$3 ranks=$4 mpiexec=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
PARLOOP_BACKEND=host "$native" --size 2000 --iterations 1 --write-mesh "$work/mesh.dat" >/dev/null 2>&1 ||
  fail "the native example could not write its mesh"
if ! "$mpiexec" -np "$ranks" "$@" "$distributed" "$work/mesh.dat" 300 15 >"$work/mpi.full" 2>"$work/mpi.err"; then
  if grep -q "is not available\|no CUDA driver\|no OpenCL" "$work/mpi.err"; then
    echo "skipped: $(grep -m1 "is not available\|no CUDA driver\|no OpenCL" "$work/mpi.err")"
    exit 77
  fi
  fail "$mpiexec -np $ranks $distributed: $(cat "$work/mpi.full" "$work/mpi.err")"
fi
grep -q "^op_partition(PTSCOTCH, KWAY): .* over $ranks ranks$" "$work/mpi.full" ||
  fail "no line saying how the mesh was partitioned over $ranks ranks: $(cat "$work/mpi.full")"
PARLOOP_BACKEND=host "$serial" "$work/mesh.dat" 300 15 >"$work/serial.full" 2>"$work/serial.err" ||
  fail "$serial: $(cat "$work/serial.err")"
for run in mpi serial; do grep -E '^ [0-9]+  | q checksum ' "$work/$run.full" >"$work/$run" || true; done
[ "$(wc -l <"$work/serial")" -eq 4 ] || fail "expected 3 lines of history and a checksum: $(cat "$work/serial.full")"
awk -v tolerance=1e-9 -f "$(dirname "$0")/same_numbers.awk" "$work/serial" "$work/mpi" ||
  fail "$ranks ranks on $PARLOOP_BACKEND against one process on the host: $(paste "$work/serial" "$work/mpi")"
grep "^op_partition" "$work/mpi.full"
paste "$work/serial" "$work/mpi"
echo "airfoil_op2_mpi on $ranks ranks ($PARLOOP_BACKEND): one process's history and final state to 1e-9"
if [ -n "${AIRFOIL_OP2_HDF5_MPI:-}" ]; then
  PARLOOP_BACKEND=host "$native" --mesh "$work/mesh.dat" --iterations 0 --write-mesh "$work/mesh.h5" >/dev/null ||
    fail "the native example could not convert its mesh to HDF5"
  "$mpiexec" -np "$ranks" "$@" "$AIRFOIL_OP2_HDF5_MPI" "$work/mesh.h5" 300 15 "" "$work/dump.h5" >"$work/hdf5.full" \
    2>"$work/hdf5.err" ||
    fail "$mpiexec -np $ranks $AIRFOIL_OP2_HDF5_MPI: $(cat "$work/hdf5.full" "$work/hdf5.err")"
  grep -E '^ [0-9]+  | q checksum ' "$work/hdf5.full" >"$work/hdf5" || true
  awk -v tolerance=1e-9 -f "$(dirname "$0")/same_numbers.awk" "$work/serial" "$work/hdf5" ||
    fail "$ranks ranks from HDF5 against one process on the host: $(paste "$work/serial" "$work/hdf5")"
  echo "airfoil_op2_hdf5_mpi on $ranks ranks ($PARLOOP_BACKEND), each reading its block: the same to 1e-9"
  # The mesh the ranks dumped (op_dump_to_hdf5: their blocks put together) read by one process.
  "$mpiexec" -np 1 "$@" "$AIRFOIL_OP2_HDF5_MPI" "$work/dump.h5" 300 15 >"$work/dump.full" 2>"$work/dump.err" ||
    fail "reading the dump: $(cat "$work/dump.full" "$work/dump.err")"
  grep -E '^ [0-9]+  | q checksum ' "$work/dump.full" >"$work/dump" || true
  awk -v tolerance=1e-9 -f "$(dirname "$0")/same_numbers.awk" "$work/serial" "$work/dump" ||
    fail "the dump of $ranks ranks read back: $(paste "$work/serial" "$work/dump")"
  echo "op_dump_to_hdf5 on $ranks ranks, read back by one process: the same to 1e-9"
fi
