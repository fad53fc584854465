#!/bin/bash
# How long a user's program takes to compile: a program with one par_loop, and one with five,
# at -O2 with the OpenCL backend linked, compiled with this tree's headers (header-only, and as a
# program of the compiled library, PARLOOP_COMPILED=1, sees them) and with BASE's (a commit;
# default HEAD~1, header-only), in turn, RUNS times each (default 3). Prints each median and the
# ratios to BASE in the same run, so a slower machine does not read as a change.
#   benchmarks/compile_time.sh [BASE] [RUNS]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-HEAD~1}
runs=${2:-3}
cxx=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git -C "$root" rev-parse --verify --quiet "$base^{commit}" >/dev/null ||
  { echo "compile_time.sh: '$base' is not a commit of $root" >&2; exit 2; }
mkdir -p "$work/base"
git -C "$root" archive "$base" include | tar -x -C "$work/base"

# A program of `loops` loops, each with a kernel of its own, as a user writes them.
program() {
  local loops=$1
  echo '#include <parloop/parloop.hpp>'
  echo 'namespace pl = parloop;'
  echo 'int main() {'
  echo '  pl::Runtime rt = pl::Runtime::open();'
  echo '  pl::Set cells(rt, 1000), edges(rt, 2000);'
  echo '  std::vector<int> ends(4000);'
  echo '  for (int i = 0; i < 4000; ++i) ends[i] = (i * 7) % 1000;'
  echo '  pl::Map e2c(edges, cells, 2, ends);'
  echo '  pl::Dat<double, 4> q(cells), res(cells);'
  echo '  pl::Global<double> rms(rt, 0.0);'
  for ((i = 0; i < loops; ++i)); do
    case $((i % 3)) in
      0) echo "  pl::par_loop(pl::kernel(\"flux$i\", [](auto qa, auto qb, auto ra, auto rb) {"
         echo '    for (int k = 0; k < 4; ++k) { auto f = pl::let(0.5 * (qa[k] + qb[k])); ra[k] += f; rb[k] -= f; }'
         echo '  }), edges, q(pl::READ, e2c, 0), q(pl::READ, e2c, 1), res(pl::INC, e2c, 0), res(pl::INC, e2c, 1));' ;;
      1) echo "  pl::par_loop(pl::kernel(\"update$i\", [](auto r, auto q, auto g) {"
         echo '    for (int k = 0; k < 4; ++k) { q[k] = q[k] + r[k]; g += r[k] * r[k]; }'
         echo '  }), cells, res(pl::READ), q(pl::RW), rms(pl::INC));' ;;
      2) echo "  pl::par_loop(pl::kernel(\"scale$i\", [](auto q) {"
         echo '    for (int k = 0; k < 4; ++k) q[k] = pl::sqrt(pl::fabs(q[k]) * 2.0);'
         echo '  }), cells, q(pl::RW));' ;;
    esac
  done
  echo '  return rms.value() > 0 ? 0 : 1;'
  echo '}'
}
program 1 >"$work/one_loop.cpp"
program 5 >"$work/five_loops.cpp"

flags=(-std=c++20 -O2 -DPARLOOP_HAVE_OPENCL=1 -c -o /dev/null)
seconds() {  # include folder, source, extra flags
  local start end
  start=$(date +%s.%N)
  "$cxx" "${flags[@]}" "${@:3}" -I"$1" "$2"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "compile time at -O2, OpenCL backend linked, $runs runs each, $(nproc) cores, $("$cxx" --version | head -1)"
printf '%-18s %12s %12s %12s %10s %10s\n' program "header-only" compiled "$base" "ratio h/b" "ratio c/b"
for name in one_loop five_loops; do
  here=() compiled=() there=()
  for ((r = 0; r < runs; ++r)); do
    here+=("$(seconds "$root/include" "$work/$name.cpp")")
    compiled+=("$(seconds "$root/include" "$work/$name.cpp" -DPARLOOP_COMPILED=1)")
    there+=("$(seconds "$work/base/include" "$work/$name.cpp")")
  done
  h=$(printf '%s\n' "${here[@]}" | median)
  c=$(printf '%s\n' "${compiled[@]}" | median)
  t=$(printf '%s\n' "${there[@]}" | median)
  printf '%-18s %11.2fs %11.2fs %11.2fs %10.2f %10.2f\n' "$name.cpp" "$h" "$c" "$t" "$(echo "$h / $t" | bc -l)" \
    "$(echo "$c / $t" | bc -l)"
done
