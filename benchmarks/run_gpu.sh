#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole GPU run, on a machine with an NVIDIA GPU: configure against the carried
# dependencies (tools/carry_deps.sh fills .deps/ beforehand), build, run the GPU tests (the
# suite on CUDA), compute-sanitizer memcheck and racecheck over the CUDA tests, the examples on
# CUDA, the rest of the suite, the benchmarks (CUDA, and OpenCL on every OpenCL device) and Airfoil
# against hand-written CUDA (bench_airfoil); on the CPU, Airfoil on the host and threads
# backends against hand-written sequential and OpenMP solvers (bench-cpu).
# Logs go to $OUT (or ./gpu-run); the summary is $OUT/summary.txt.
# Usage: benchmarks/run_gpu.sh [step...]   steps: build gpu sanitize examples suite bench bench-airfoil
# bench-meshes bench-cpu renumber mpi op2 subset extruded (default: all); build-airfoil builds only what the
# mpi, renumber, bench-meshes, op2, subset and extruded steps run (for a machine lent briefly).
# Built with the compiled library, as the test suite is; PARLOOP_GPU_COMPILED=OFF builds it
# header-only.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-run}
mkdir -p "$out"
build="$root/build-gpu"
# The carried libraries (METIS, Scotch: tools/carry_deps.sh) for the programs and for what those
# libraries need in turn (libscotch needs libscotcherr), which a program's RUNPATH does not cover.
export LD_LIBRARY_PATH="$root/.deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# HDF5 (carried: .deps/hdf5): of the libraries it links, those this machine lacks, on the programs'
# path; the machine's own stay first for everything else (CMake, the compilers).
hdf5_args=()
if [ -d "$root/.deps/hdf5/runtime" ]; then
  missing="$root/.deps/hdf5/missing"
  rm -rf "$missing" && mkdir -p "$missing"
  for lib in "$root/.deps/hdf5/runtime"/*.so*; do
    name=$(basename "$lib")
    ldconfig -p | grep -q "^[[:space:]]*$name " || ln -s "$lib" "$missing/$name"
  done
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$missing"
  hdf5_args=(-DHDF5_ROOT="$root/.deps/hdf5")
fi
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build gpu sanitize examples suite bench bench-airfoil bench-meshes bench-cpu renumber mpi op2 subset extruded)
status=0
summary="$out/summary.txt"
note() { echo "$*" | tee -a "$summary"; }

for step in "${steps[@]}"; do
  case $step in
    build | build-airfoil)
      {
        date -u
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
        nvcc --version | tail -2
      } 2>&1 | tee "$out/machine.txt"
      cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARLOOP_BUILD_BENCHMARKS=ON \
        -DPARLOOP_COMPILED="${PARLOOP_GPU_COMPILED:-ON}" \
        -DCMAKE_PREFIX_PATH="$root/.deps" "${hdf5_args[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
      targets=()
      [ "$step" = build ] || targets=(--target airfoil airfoil_mpi shuffle_mesh order_mesh bench_airfoil airfoil_op2 bench_subset bench_extruded)
      cmake --build "$build" -j "$(nproc)" "${targets[@]}" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
      note "$step: ok ($(grep -o 'parloop components: .*' "$out/configure.log"))"
      ;;
    gpu)
      # Every test labelled gpu: test_cuda, and the suite's device tests with PARLOOP_TEST_BACKEND=cuda.
      # Here the kernels a test program compiles at its end become machine code for sm_90 (in CI,
      # without a GPU, NVRTC's front end checks them).
      PARLOOP_TEST_COMPILE_KERNELS=full ctest --test-dir "$build" -L gpu -j 4 --output-on-failure >"$out/ctest-gpu.log" 2>&1 || status=1
      note "gpu tests: $(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log")"
      grep -E 'Skipped|Not Run' "$out/ctest-gpu.log" | tee -a "$summary"
      ;;
    sanitize)
      # Every kernel of the CUDA tests under memcheck (also leaks of device memory) and racecheck
      # (shared memory hazards: the reductions' combines, a plan's staged increments).
      # test_device_loops is an executable of its own; test_cuda and test_coloring are files of
      # test_units, run by their tag.
      for tool in memcheck racecheck; do
        for t in test_cuda test_device_loops test_coloring; do
          extra=()
          [ "$tool" = memcheck ] && extra=(--leak-check full)
          run=("$build/tests/test_units" --filenames-as-tags --warn NoTests "[#$t]")
          [ "$t" = test_device_loops ] && run=("$build/tests/$t")
          PARLOOP_TEST_BACKEND=cuda PARLOOP_TEST_COMPILE_KERNELS=0 \
            compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 "${run[@]}" \
            >"$out/$tool-$t.log" 2>&1 || status=1
          note "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool-$t.log" | tail -1)"
        done
      done
      ;;
    examples)
      for e in triad/triad jacobi/jacobi from_source/from_source; do
        log="$out/example-$(basename "$e").log"
        PARLOOP_BACKEND=cuda "$build/examples/$e" >"$log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || status=1
        note "example $(basename "$e") on CUDA: exit $rc -- $(head -1 "$log")"
      done
      # Airfoil at OP2's size: both kinds of kernels, atomics, colours and blocks; then the per-kernel
      # table (PARLOOP_STATS times each loop to its end, so it runs apart from the timed runs).
      for conflicts in atomics colors blocks; do
        for kernels in dsl c; do
          log="$out/example-airfoil-$kernels-$conflicts.log"
          PARLOOP_BACKEND=cuda PARLOOP_CONFLICTS=$conflicts "$build/examples/airfoil/airfoil" --kernels $kernels >"$log" 2>&1
          rc=$?
          [ $rc -eq 0 ] || status=1
          note "example airfoil --kernels $kernels, $conflicts, on CUDA: exit $rc -- $(grep -E '^ 1000 |iterations in' "$log" | tr '\n' ' ')"
        done
        PARLOOP_BACKEND=cuda PARLOOP_CONFLICTS=$conflicts PARLOOP_STATS=1 "$build/examples/airfoil/airfoil" \
          >"$out/example-airfoil-stats-$conflicts.log" 2>&1 || status=1
      done
      ;;
    suite)
      PARLOOP_TEST_COMPILE_KERNELS=full ctest --test-dir "$build" -LE gpu -j "$(nproc)" --output-on-failure >"$out/ctest-all.log" 2>&1 || status=1
      note "rest of the suite: $(grep -E 'tests passed|tests failed' "$out/ctest-all.log")"
      ;;
    bench)
      "$build/benchmarks/bench_cuda" 24 2>&1 | tee "$out/bench-cuda.txt" || status=1
      grep -E 'ratio|TB/s;' "$out/bench-cuda.txt" >>"$summary"
      # The first par_loop of a fresh process, parloop's disk cache cold and warm.
      PARLOOP_BACKEND=cuda "$build/benchmarks/bench_startup" 2>&1 | tee "$out/bench-startup-cuda.txt" || status=1
      grep -E 'ratio' "$out/bench-startup-cuda.txt" | sed 's/^/startup on CUDA: /' >>"$summary"
      # "Platform #P: ..." then " `-- Device #D: ..." lines become P:D.
      for dev in $(clinfo -l 2>/dev/null | sed -n 's/^Platform #\([0-9]*\).*/P \1/p; s/.*Device #\([0-9]*\).*/D \1/p' |
                   awk '$1 == "P" {p = $2} $1 == "D" {print p ":" $2}'); do
        PARLOOP_OPENCL_DEVICE=$dev "$build/benchmarks/bench_opencl" 24 >"$out/bench-opencl-${dev/:/-}.txt" 2>&1 || status=1
        PARLOOP_BACKEND=opencl PARLOOP_OPENCL_DEVICE=$dev "$build/benchmarks/bench_startup" \
          >"$out/bench-startup-opencl-${dev/:/-}.txt" 2>&1 || status=1
        grep -E 'ratio' "$out/bench-startup-opencl-${dev/:/-}.txt" | sed "s/^/startup on OpenCL $dev: /" >>"$summary"
      done
      ;;
    bench-airfoil)
      # Airfoil at OP2's size: parloop's variants against hand-written CUDA, whole iterations and
      # per loop; the plot is made from the CSV where matplotlib is (benchmarks/plot_airfoil.py).
      # The log (PARLOOP_LOG=info, on stderr) has every compile and each tuned loop's candidates.
      PARLOOP_LOG=info "$build/benchmarks/bench_airfoil" --csv "$out/bench-airfoil.csv" 2>"$out/bench-airfoil-log.txt" |
        tee "$out/bench-airfoil.txt"
      rc=${PIPESTATUS[0]}
      [ $rc -eq 0 ] || { status=1; tail -20 "$out/bench-airfoil-log.txt"; }
      note "bench airfoil: exit $rc -- $(grep -E '^best parloop|^WRONG|memory floor:' "$out/bench-airfoil.txt" | tr '\n' ' ')"
      grep -E 'autotuned' "$out/bench-airfoil-log.txt" | tee -a "$summary"
      ;;
    bench-meshes)
      # bench_airfoil on other meshes, whole iterations: the O-grid as generated, and with
      # parloop's loops renumbered; the C-mesh renumbered; the O-grid numbered at random, parloop
      # renumbered and the hand-written solver in that numbering.
      "$build/examples/airfoil/airfoil" --grid o --iterations 0 --write-mesh "$out/o-grid.dat" >/dev/null 2>&1 &&
        "$build/benchmarks/shuffle_mesh" "$out/o-grid.dat" "$out/o-grid-random.dat" >/dev/null || status=1
      for run in "o-renumbered:--grid o --renumber" "o:--grid o" "c-renumbered:--renumber" \
        "o-random-renumbered:--mesh $out/o-grid-random.dat --renumber"; do
        name=${run%%:*}
        read -ra flags <<<"${run#*:}"
        "$build/benchmarks/bench_airfoil" --no-per-loop "${flags[@]}" >"$out/bench-airfoil-$name.txt" 2>&1 || status=1
        note "bench airfoil $name: $(grep -E '^best parloop|^WRONG' "$out/bench-airfoil-$name.txt" | tr '\n' ' ')"
      done
      rm -f "$out/o-grid.dat" "$out/o-grid-random.dat"
      ;;
    bench-cpu)
      # The machine's CPU, otherwise idle: Airfoil at OP2's size on the host and threads backends
      # against the hand-written sequential and OpenMP solvers, 1 to all cores, and PoCL; the
      # threads backend's launch, triad and SUM against plain loops. benchmarks/plot_airfoil_cpu.py
      # draws the CSV (time per iteration against threads) where matplotlib is.
      "$build/benchmarks/bench_airfoil_cpu" --size 720000 --iterations 20 --threads 1,2,4,8,16 \
        --csv "$out/bench-airfoil-cpu.csv" 2>&1 | tee "$out/bench-airfoil-cpu.txt"
      rc=${PIPESTATUS[0]}
      [ $rc -eq 0 ] || status=1
      note "bench airfoil cpu: exit $rc -- $(grep -E '^whole|^WRONG' "$out/bench-airfoil-cpu.txt" | tr '\n' ' ')"
      "$build/benchmarks/bench_threads" 2>&1 | tee "$out/bench-threads.txt" || status=1
      grep -E 'launch|triad|SUM' "$out/bench-threads.txt" >>"$summary"
      ;;
    op2)
      # Airfoil written against OP2's API against the native example with the same C kernels, at
      # OP2's size, on CUDA and on PoCL (the machine's 16 cores; fewer iterations).
      "$root/benchmarks/op2_airfoil.sh" "$build" 720000 1000 cuda 2>&1 | tee "$out/op2-airfoil-cuda.txt" || status=1
      PARLOOP_OPENCL_DEVICE=portable RUNS=2 "$root/benchmarks/op2_airfoil.sh" "$build" 720000 50 opencl 2>&1 |
        tee "$out/op2-airfoil-pocl.txt" || status=1
      grep -h -E '^op2 airfoil' "$out"/op2-airfoil-*.txt >>"$summary"
      ;;
    subset)
      # A loop over half a set (contiguous, every other element, at random) against the whole
      # set's loop, on CUDA and on PoCL (the machine's 16 cores): the goal is at most ~0.55x.
      PARLOOP_BACKEND=cuda "$build/benchmarks/bench_subset" 2>&1 | tee "$out/bench-subset-cuda.txt" || status=1
      # And 16 times the size, where a launch and its wait (some 8 us) are not a quarter of the triad.
      PARLOOP_BACKEND=cuda "$build/benchmarks/bench_subset" $((1 << 26)) 2>&1 | tee "$out/bench-subset-cuda-large.txt" || status=1
      PARLOOP_BACKEND=opencl PARLOOP_OPENCL_DEVICE=portable "$build/benchmarks/bench_subset" 2>&1 |
        tee "$out/bench-subset-pocl.txt" || status=1
      grep -h -E '^bench_subset|half|other' "$out"/bench-subset-*.txt >>"$summary"
      ;;
    extruded)
      # The extruded example's step (Airfoil's mesh at OP2's size, 50 layers on CUDA; 200 000 base
      # cells on PoCL's 16 cores) against flattened sets and the memory floor.
      PARLOOP_BACKEND=cuda "$build/benchmarks/bench_extruded" 720000 50 2>&1 | tee "$out/bench-extruded-cuda.txt" || status=1
      PARLOOP_BACKEND=opencl PARLOOP_OPENCL_DEVICE=portable "$build/benchmarks/bench_extruded" 200000 50 2>&1 |
        tee "$out/bench-extruded-pocl.txt" || status=1
      grep -h -E '^bench_extruded|^step|^triad' "$out"/bench-extruded-*.txt >>"$summary"
      ;;
    renumber)
      # Airfoil at OP2's size in the generator's numbering and numbered at random, with the loops
      # renumbered for locality and without, on CUDA and on the threads backend (all the cores),
      # and over MPI ranks on the threads backend.
      # With the random mesh also in the other orders issue 28 named (Hilbert, Scotch's): which wins.
      orders="rcm hilbert scotch"
      ORDERS=$orders "$root/benchmarks/renumber_airfoil.sh" "$build" 720000 1000 cuda 2>&1 |
        tee "$out/renumber-cuda.txt" || status=1
      # And an O-grid, the other shape of mesh users bring, as the example runs and autotuned
      # (the C-mesh autotuned too, for the comparison).
      GRID=o ORDERS=$orders "$root/benchmarks/renumber_airfoil.sh" "$build" 720000 1000 cuda 2>&1 |
        tee "$out/renumber-cuda-o.txt" || status=1
      for grid in o c; do
        GRID=$grid AIRFOIL_OPTIONS=--autotune "$root/benchmarks/renumber_airfoil.sh" "$build" 720000 1000 cuda 2>&1 |
          tee "$out/renumber-cuda-$grid-tuned.txt" || status=1
      done
      ORDERS=$orders "$root/benchmarks/renumber_airfoil.sh" "$build" 720000 50 threads 2>&1 |
        tee "$out/renumber-threads.txt" || status=1
      # Over 4 MPI ranks of 4 threads each: every rank ordering its share, or not.
      if [ -x "$build/examples/airfoil/airfoil_mpi" ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
          "$root/benchmarks/renumber_airfoil.sh" "$build" 720000 50 mpi4:threads 2>&1 | tee "$out/renumber-mpi.txt" || status=1
      fi
      grep -h -E '^renumber on|^order on|WRONG' "$out"/renumber-*.txt >>"$summary"
      ;;
    mpi)
      # Airfoil over MPI ranks on CUDA, each rank on the GPU of its local rank (modulo the GPUs):
      # one process against airfoil_mpi on 1 rank (the distributed path's own cost), then strong
      # scaling (OP2's size on every GPU) and weak scaling (OP2's size per GPU) where there are
      # several. The machine's own Open MPI; the rms histories agree (tests: airfoil_mpi_agreement).
      [ -x "$build/examples/airfoil/airfoil_mpi" ] || { note "mpi: airfoil_mpi not built (no MPI)"; continue; }
      gpus=$(nvidia-smi -L | wc -l)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PARLOOP_BACKEND=cuda
      # Each rank takes the GPU of its local rank by itself (exec/device/device_choice.hpp).
      on_gpus() {
        local ranks=$1; shift
        mpirun -np "$ranks" --oversubscribe --bind-to none "$@"
      }
      run_airfoil() {
        local name=$1; shift
        # A short run first: its kernels and tuned launches are in the disk cache for the timed one.
        "$@" --iterations 2 >/dev/null 2>&1 || status=1
        "$@" >"$out/mpi-$name.txt" 2>&1 || status=1
        note "mpi $name: $(grep -E 'iterations in' "$out/mpi-$name.txt") -- rms $(grep -E '^ 1000 ' "$out/mpi-$name.txt")"
      }
      for kernels in dsl c; do
        run_airfoil "one-process-$kernels" "$build/examples/airfoil/airfoil" --kernels $kernels --autotune
        for ranks in $(seq 1 "$gpus"); do
          run_airfoil "strong-np$ranks-$kernels" on_gpus "$ranks" "$build/examples/airfoil/airfoil_mpi" --kernels $kernels --autotune
          [ "$ranks" -gt 1 ] || continue
          run_airfoil "weak-np$ranks-$kernels" on_gpus "$ranks" "$build/examples/airfoil/airfoil_mpi" --kernels $kernels --autotune \
            --size $((720000 * ranks))
        done
      done
      ;;
    *) echo "unknown step '$step'"; exit 2 ;;
  esac
done
exit $status
