# SPDX-License-Identifier: MIT
# Whether two outputs hold the same words, and numbers equal to `tolerance` relative to their
# size (at least 1 when `relative_to_one` is set, so that values near zero are compared
# absolutely): awk -v tolerance=1e-12 -f same_numbers.awk first second. Exits 1 at the first
# difference, and prints it.
FILENAME == ARGV[1] { first[FNR] = $0; n = FNR; next }
{
  if (FNR > n) differ("line " FNR ": only in the second")
  la = split(first[FNR], a)
  m = split($0, b)
  if (m != la) differ("line " FNR ": " first[FNR] " | " $0)
  for (i = 1; i <= m; ++i) {
    if (a[i] == b[i]) continue
    if (a[i] !~ /^[-+0-9.eE]+$/ || b[i] !~ /^[-+0-9.eE]+$/) differ("line " FNR ": " first[FNR] " | " $0)
    d = a[i] - b[i]; s = (a[i] < 0 ? -a[i] : a[i]); if (relative_to_one && s < 1) s = 1
    if ((d < 0 ? -d : d) > tolerance * s) differ("line " FNR ": " first[FNR] " | " $0)
  }
  seen = FNR
}
function differ(why) { print why; failed = 1; exit 1 }
END {
  if (failed) exit 1
  if (seen != n) { print "the second has " seen + 0 " lines, the first " n + 0; exit 1 }
}
