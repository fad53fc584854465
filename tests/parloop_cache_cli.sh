#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# parloop-cache end to end: a cache filled by a program (three kernels), then every command.
# Usage: parloop_cache_cli.sh <parloop-cache> <disk_cache_child>
set -euo pipefail
tool=$1 child=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PARLOOP_CACHE=on PARLOOP_CACHE_DIR="$work/cache"
fail() { echo "FAILED: $*"; exit 1; }

PARLOOP_LOG=info "$child" >"$work/run1.txt" 2>"$work/log1.txt" ||
  { rc=$?; [ $rc -eq 77 ] && { echo "skipped: no device"; exit 77; }; fail "child exit $rc"; }
grep -q "compiled=3 disk_hits=0 right=1" "$work/run1.txt" || fail "first run: $(cat "$work/run1.txt")"
# PARLOOP_LOG=info: a line before and after each compile; on a second run, one per disk hit.
[ "$(grep -c "^parloop: compiling kernel 'child_" "$work/log1.txt")" -eq 3 ] || fail "log: $(cat "$work/log1.txt")"
[ "$(grep -c "^parloop: compiled kernel 'child_.*' in [0-9.]* ms$" "$work/log1.txt")" -eq 3 ] || fail "log: $(cat "$work/log1.txt")"
PARLOOP_LOG=info "$child" >/dev/null 2>"$work/log2.txt"
[ "$(grep -c "^parloop: loaded kernel 'child_.*' from the disk cache (.*\.plk) in [0-9.]* ms$" "$work/log2.txt")" -eq 3 ] ||
  fail "log of a second run: $(cat "$work/log2.txt")"
if PARLOOP_LOG=loud PARLOOP_CACHE=off "$child" >/dev/null 2>"$work/log3.txt"; then fail "PARLOOP_LOG=loud was taken"; fi
grep -q "PARLOOP_LOG is 'loud': use off (no lines, the default) or info" "$work/log3.txt" || fail "bad PARLOOP_LOG: $(cat "$work/log3.txt")"
"$tool" stats | tee "$work/stats.txt"
grep -q ": 3 entries" "$work/stats.txt" || fail "stats"
"$tool" list | tee "$work/list.txt"
[ "$(grep -c pl_kernel_child_ "$work/list.txt")" -eq 3 ] || fail "list"
"$tool" verify | grep -q "^0 bad entries" || fail "verify of a good cache"
# Rebuilt from their sources by this machine's compiler: each the same binary, or (PoCL) not
# comparable; none differs.
"$tool" verify --rebuild >"$work/rebuild.txt" || fail "verify --rebuild of a good cache: $(cat "$work/rebuild.txt")"
cat "$work/rebuild.txt"
summary='^rebuilt from their sources: \([0-9]*\) same, 0 differ, \([0-9]*\) not compared, 0 not rebuilt here$'
rebuilt=$(sed -n "s/$summary/\1 + \2/p" "$work/rebuild.txt")
[ "$((${rebuilt:-0}))" = 3 ] || fail "verify --rebuild: $(cat "$work/rebuild.txt")"
if "$tool" verify --rebuilt 2>/dev/null; then fail "verify took an unknown option"; fi

# A damaged entry: verify says which and fails; a program recompiles that one kernel.
entry=$(find "$work/cache" -name '*.plk' | head -1)
printf '\xff' | dd of="$entry" bs=1 seek=100 conv=notrunc status=none
if "$tool" verify >"$work/verify.txt"; then fail "verify passed a damaged entry"; fi
grep -q "BAD: payload checksum mismatch" "$work/verify.txt" || fail "verify: $(cat "$work/verify.txt")"
"$child" | grep -q "compiled=1 disk_hits=2 right=1" || fail "after damage"

# Export, clear, import: the second run compiles nothing.
"$tool" export "$work/kernels.plx" | grep -q "exported 3 entries" || fail "export"
"$tool" clear
"$tool" stats | grep -q ": 0 entries" || fail "clear"
"$tool" import "$work/kernels.plx" | grep -q "imported 3 entries, refused 0" || fail "import"
"$child" | grep -q "compiled=0 disk_hits=3 right=1" || fail "after import"
printf 'not an export' >"$work/bogus.plx"
if "$tool" import "$work/bogus.plx" 2>"$work/err.txt"; then fail "imported a bogus file"; fi
grep -q "is not a parloop cache export" "$work/err.txt" || fail "bogus import message"

# Bad input is one line on standard error and exit status 1, never a crash or a wrap-around.
expect_refused() {  # <what the message says> <command...>
  local says=$1
  shift
  if "$tool" "$@" >"$work/out.txt" 2>"$work/err.txt"; then fail "$* was taken"; fi
  [ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q "$says" "$work/err.txt" || fail "$*: $(cat "$work/err.txt")"
}
expect_refused "" export ""
expect_refused "at most" prune 17592186044416
expect_refused "" prune -1
expect_refused "" prune 12abc
"$tool" stats | grep -q ": 3 entries" || fail "a refused command changed the cache"

# clear removes only what parloop wrote: a folder with anything else in it is refused whole.
echo "mine" >"$work/cache/notes.txt"
expect_refused "notes.txt" clear
"$tool" stats | grep -q ": 3 entries" || fail "a refused clear removed entries"
[ -f "$work/cache/notes.txt" ] || fail "clear removed a file it did not write"
rm "$work/cache/notes.txt"

"$tool" prune 0 | grep -q "removed 3 entries" || fail "prune"
if "$tool" frobnicate 2>/dev/null; then fail "an unknown command"; fi
echo "parloop-cache: every command ok"
