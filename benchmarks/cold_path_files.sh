#!/bin/bash
# Which of the library's headers one cold par_loop on OpenCL (PoCL here) runs code of: a program
# opens a runtime and makes two dats, then runs one loop or not; built with gcov's counters, the
# lines run more often with the loop than without it are the loop's. Prints each header with how
# many of its lines the loop ran, and the count of headers and folders (issue 26 measured 33
# files in 7 folders by reading the path).
#   benchmarks/cold_path_files.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/p.cpp" <<'CPP'
#include <parloop/parloop.hpp>
#include <cstring>
namespace pl = parloop;
int main(int argc, char** argv) {
  pl::Runtime rt = pl::Runtime::open(pl::backend_kind::opencl);
  pl::Set cells(rt, 1000);
  pl::Dat<double> a(cells), b(cells);
  const auto k = pl::kernel("scale", [](auto x, auto y) { y[0] = 2.0 * x[0]; });
  if (argc > 1 && std::strcmp(argv[1], "loop") == 0) pl::par_loop(k, cells, a(pl::READ), b(pl::WRITE));
}
CPP
cd "$work"
g++ -std=c++20 -O0 --coverage -DPARLOOP_HAVE_OPENCL=1 -I"$root/include" p.cpp -o p -lOpenCL -lfmt -lxxhash -pthread -ldl
for run in none loop; do
  rm -f ./*.gcda
  # Both caches cold: the loop compiles.
  PARLOOP_CACHE_DIR="$work/cache-$run" POCL_CACHE_DIR="$work/pocl-$run" ./p "$run"
  gcov --json-format --stdout p.gcda >"$run.json" 2>/dev/null
done
python3 - "$root/include/parloop/" <<'PY'
import collections, json, os, sys
prefix = sys.argv[1]
def counts(name):
    out = collections.defaultdict(dict)
    for line in open(name):
        if line.strip():
            for f in json.loads(line)["files"]:
                for l in f["lines"]:
                    out[f["file"]][l["line_number"]] = l["count"]
    return out
without, loop = counts("none.json"), counts("loop.json")
ran = {}
for f, lines in loop.items():
    if f.startswith(prefix):
        n = sum(1 for number, c in lines.items() if c > without.get(f, {}).get(number, 0))
        if n:
            ran[f[len(prefix):]] = n
folders = collections.Counter(os.path.dirname(f) for f in ran)
for f in sorted(ran):
    print(f"{ran[f]:5d}  {f}")
print(f"one cold par_loop ran lines of {len(ran)} headers in {len(folders)} folders: "
      + ", ".join(f"{d} {n}" for d, n in folders.most_common()))
PY
