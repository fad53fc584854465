# SPDX-License-Identifier: MIT
# What the Airfoil agreement scripts share (sourced): the backend under test, a work folder
# removed at exit, the number comparison, the small mesh they run and the kernels they run.
backend=${PARLOOP_BACKEND:?PARLOOP_BACKEND names the backend under test}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk_script="$(dirname "${BASH_SOURCE[0]}")/same_numbers.awk"
fail() { echo "FAILED: $*"; exit 1; }
# The run's options, and with the generated mesh's size (a mesh read from a file has its own).
run=(--iterations 300 --digits 15)
size=(--size 2000 "${run[@]}")
# The kernels the backend runs: OP2's C kernels need a device; host and threads run the DSL's.
kernels_here=(dsl)
case $backend in host | threads) ;; *) kernels_here+=(c) ;; esac
