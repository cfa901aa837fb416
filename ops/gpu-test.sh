#!/usr/bin/env bash
# ops/gpu-test.sh — GPU tests and benchmarks, in two steps, because the GPU
# machine has the driver, NVRTC and nvcc but no Go:
#
#   ops/gpu-test.sh build   here: builds the test binaries of every package
#                           with GPU code into build/gpu (git-ignored), and
#                           with WITH_GRAPHNB=1 the graphnb binary too
#   ops/gpu-test.sh run     on the GPU machine, from the repository root with
#                           build/gpu carried along: runs every test binary
#                           (GPU tests included: they skip without a device),
#                           the benchmarks, and the C reference programs in
#                           ops/gpuref (built there with nvcc); logs go to
#                           $OUT (or out/gpu)
#
# With graphnb's device tool: ops/gpu-test.sh build, then run the command
# "ops/gpu-test.sh run" there with carry ["build/gpu"].
# Environment for run: BENCH (benchmark regexp, default "."), BENCHTIME
# (default 3x), PKGS (packages), TESTS=0 to skip the tests, BENCH=none to skip
# the benchmarks, REFS=1 to also build and run the C references and probes,
# TESTRUN (regexp of the test names to run, default all).
# The device checks of BFS and SSSP results (issue 15), their agreement with
# the CPU checkers and the bench rows that say "device":
#   PKGS="algo/bfs algo/sssp bench" ops/gpu-test.sh build, then
#   PKGS="algo/bfs algo/sssp bench" TESTRUN='DeviceCheck|ChecksOnDevice|CheckSource|GPUVariants' \
#     BENCH=GPUCheck ops/gpu-test.sh run
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS=${PKGS:-"gpu"}

case "${1:-}" in
build)
  rm -rf build/gpu && mkdir -p build/gpu   # only what this build makes travels
  for p in $PKGS; do
    # Stripped (-s -w: no symbol table or DWARF; stack traces still work)
    # so that several test binaries fit the device tool's 64 MiB carry.
    go test -c -ldflags="-s -w" -o "build/gpu/$(echo "$p" | tr / _).test" "./$p"
  done
  if [ -n "${WITH_GRAPHNB:-}" ]; then   # for notebooks and sweeps on the GPU machine (30 MB)
    go build -ldflags="-s -w" -o build/gpu/graphnb ./cmd/graphnb
  fi
  ls -la build/gpu
  ;;
run)
  out=${OUT:-out/gpu}
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/device.txt"
  status=0
  for p in $PKGS; do
    bin="$PWD/build/gpu/$(echo "$p" | tr / _).test"
    name=$(basename "$bin" .test)
    if [ "${TESTS:-1}" != 0 ]; then
    echo "=== tests: $p"
    # Every test runs in a process of its own: a kernel fault leaves a
    # process unable to use CUDA again, and a crash must not hide the rest.
    : > "$out/$name-test.log"
    for t in $(cd "$p" && "$bin" -test.list "${TESTRUN:-.*}" | grep -E '^(Test|Example|Fuzz)'); do
      (cd "$p" && "$bin" -test.v -test.count=1 -test.timeout 300s -test.run "^$t\$") >> "$out/$name-test.log" 2>&1 \
        || { status=1; echo "--- FAIL: $t (process exited with status $?)" >> "$out/$name-test.log"; }
    done
    grep -E '^(--- |ok|FAIL|PASS)|SKIP' "$out/$name-test.log" | grep -v '^    ' | tail -80 || true
    fi
    [ "${BENCH:-.}" = none ] && continue
    echo "=== benchmarks: $p"
    (cd "$p" && "$bin" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime "${BENCHTIME:-3x}" -test.timeout 300s) \
      > "$out/$name-bench.log" 2>&1 || status=1
    grep -E '^Benchmark|FAIL' "$out/$name-bench.log" || true
  done
  [ "${REFS:-0}" = 1 ] || exit $status
  echo "=== C references (nvcc)"
  ref=$(mktemp -d)
  (cd ops/gpuref && nvcc -O2 -o "$ref/memcpy" memcpy.cu && nvcc -cubin -arch=sm_90 -o "$ref/empty.cubin" empty.cu \
     && nvcc -O2 -o "$ref/launch" launch.c -lcuda) > "$out/ref-build.log" 2>&1 || { cat "$out/ref-build.log"; status=1; }
  { "$ref/memcpy" 1024 && "$ref/launch" "$ref/empty.cubin"; } | tee "$out/reference.jsonl" || status=1
  echo "=== fault recovery probe"
  (cd ops/gpuref && nvcc -cubin -arch=sm_90 -o "$ref/fault.cubin" faultkernels.cu && nvcc -O2 -o "$ref/faultprobe" faultprobe.c -lcuda) \
    >> "$out/ref-build.log" 2>&1 || { tail -20 "$out/ref-build.log"; status=1; }
  for s in primary created; do "$ref/faultprobe" "$ref/fault.cubin" $s; done | tee "$out/faultprobe.jsonl" || true
  echo "=== dynamic-parallelism link probe"
  (cd ops/gpuref && nvcc -O2 -o "$ref/linkprobe" linkprobe.c -lcuda -lnvrtc -lnvJitLink) >> "$out/ref-build.log" 2>&1 \
    && "$ref/linkprobe" /usr/local/cuda/lib64/libcudadevrt.a 2>&1 | tee "$out/linkprobe.jsonl" || { tail -20 "$out/ref-build.log"; status=1; }
  exit $status
  ;;
*)
  sed -n '2,20p' "$0" >&2
  exit 2
  ;;
esac
