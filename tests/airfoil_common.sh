# SPDX-License-Identifier: MIT
# What the Airfoil agreement scripts share (sourced): the backend under test, a work folder
# removed at exit, the number comparison, and the small mesh they run.
backend=${PARLOOP_BACKEND:?PARLOOP_BACKEND names the backend under test}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk_script="$(dirname "${BASH_SOURCE[0]}")/same_numbers.awk"
fail() { echo "FAILED: $*"; exit 1; }
size=(--size 2000 --iterations 300 --digits 15)
