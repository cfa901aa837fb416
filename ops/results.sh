#!/usr/bin/env bash
# ops/results.sh — the result files of docs/results/, with the peer
# programs of ../shared/peers measured in the same graphnb bench calls
# (issue 18). Two steps, because the GPU machine has nvcc but no Go:
#
#   ops/results.sh prepare   here: builds build/gpu/graphnb and copies the
#                            peers (PEERS_SRC, default ../shared/peers, or
#                            /work/shared/peers) into build/peers, both
#                            git-ignored
#   ops/results.sh [run]     on the GPU machine, from the repository root
#                            with build/gpu/graphnb and build/peers carried:
#                            builds ECL-MST and seedref with nvcc (GAPBS is
#                            prebuilt, static), then runs the sweeps below,
#                            each with its peers, writing $OUT/results/*.json
#                            (+ .png), and prints a summary
#
# With the device tool: ops/results.sh prepare, then run
# "ops/results.sh run" with carry ["build/gpu/graphnb", "build/peers"].
#
# The sweeps, shortened from the "command" fields of docs/results/*.json to
# about 8 minutes on an H100 with its 16-core host:
#   bfs   R-MAT s22 and s24, permuted (Graph500), 32 roots, GAPBS BFS and
#         seedref's BFS edge scan (s22 only) beside the GPU and CPU variants
#   sssp  R-MAT s22, int weights 1..255 (GAPBS's), 16 roots, GAPBS SSSP
#         (delta 2) and seedref's Bellman-Ford kernels
#   mst   R-MAT s22, int weights 1..255, ECL-MST on the same graph ({file})
# Without a GPU (no nvidia-smi device) graphnb runs on the host device and
# the GPU-only peers (ECL-MST, seedref) are skipped with a note; SMALL=1
# shrinks every sweep to scales 10-12, which is how it is tested off the
# GPU machine.
#
# The peers' binaries go to build/peers-bin, kept on a warm machine, so a
# second call (e.g. ONLY=bfs, then ONLY='sssp|mst') does not build them
# again.
# Environment: OUT (default out/results-run), GRAPHNB (default
# build/gpu/graphnb), PEERS (default build/peers), THREADS (GAPBS's
# OpenMP threads, default nproc), SMALL=1, STEP_TIMEOUT (seconds per sweep,
# default 200), PEER_TIMEOUT (per peer command, default 150s), ONLY (a
# regexp of the sweep names to run: bfs, sssp, mst).
set -uo pipefail
cd "$(dirname "$0")/.."

prepare() {
  set -e
  src=${PEERS_SRC:-../shared/peers}
  [ -d "$src" ] || src=/work/shared/peers
  mkdir -p build/gpu
  go build -ldflags="-s -w" -o build/gpu/graphnb ./cmd/graphnb
  rm -rf build/peers && mkdir -p build/peers
  cp -r "$src"/. build/peers/
  ls -la build/gpu/graphnb build/peers
}

# build_peers compiles the GPU peers into $bin when nvcc and a GPU are here.
build_peers() {
  if [ "$gpu" = 0 ]; then
    echo "note: no GPU here: ECL-MST and seedref are skipped (graphnb runs on the host)"
    return
  fi
  if ! command -v nvcc > /dev/null; then
    for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do [ -x "$d/nvcc" ] && PATH=$d:$PATH && break; done
  fi
  if [ -x "$bin/ecl-mst" ] && [ -x "$bin/seedref" ] && [ -z "${REBUILD:-}" ]; then
    echo "peers already built in $bin (REBUILD=1 builds them again)"
    return
  fi
  (cd "$PEERS/ecl-mst" && timeout 180 nvcc -O3 -arch=sm_90 -o "$bin/ecl-mst" ECL-MST_10.cu) > "$out/peers-build.log" 2>&1 \
    || { echo "note: ECL-MST did not build (see peers-build.log); it is skipped"; tail -5 "$out/peers-build.log"; }
  (cd "$PEERS" && timeout 180 nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o "$bin/seedref" seedref.cu) >> "$out/peers-build.log" 2>&1 \
    || { echo "note: seedref did not build (see peers-build.log); it is skipped"; tail -5 "$out/peers-build.log"; }
}

# sweep NAME ARGS... runs one graphnb bench call with a step timeout,
# writing $out/results/NAME.json and .png.
sweep() {
  local name=$1; shift
  if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then return; fi
  echo "=== $name: graphnb bench $*"
  local t0=$SECONDS
  timeout -k 10 "${STEP_TIMEOUT:-200}" "$GRAPHNB" bench "$@" -quiet -peer-timeout "${PEER_TIMEOUT:-150s}" \
    -o "$out/results/$name.json" -png "$out/results/$name.png" > "$out/$name.txt" 2> "$out/$name.log"
  local rc=$?
  cat "$out/$name.txt"
  [ $rc = 0 ] || { status=1; echo "!!! $name: exit $rc"; tail -20 "$out/$name.log"; }
  local rows peers
  rows=$(grep -c '"variant"' "$out/results/$name.json" 2> /dev/null)
  peers=$(grep -c '"peer": {' "$out/results/$name.json" 2> /dev/null)
  summary+=("$name: exit $rc in $((SECONDS - t0)) s, ${rows:-0} rows (${peers:-0} of peers)")
}

run() {
  out=${OUT:-out/results-run}
  GRAPHNB=${GRAPHNB:-build/gpu/graphnb}
  PEERS=${PEERS:-build/peers}
  mkdir -p "$out/results"
  out=$(cd "$out" && pwd)
  bin=$PWD/build/peers-bin # not carried: kept between calls on a warm machine
  mkdir -p "$bin"
  status=0
  summary=()
  [ -x "$GRAPHNB" ] || { echo "no $GRAPHNB: run ops/results.sh prepare first (and carry build/gpu/graphnb)"; exit 2; }
  [ -x "$PEERS/gapbs-bfs" ] || { echo "no $PEERS/gapbs-bfs: run ops/results.sh prepare first (and carry build/peers)"; exit 2; }
  gpu=0
  if command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    gpu=1
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
  fi
  build_peers
  threads=${THREADS:-$(nproc)}
  gapbs_bfs="OMP_NUM_THREADS=$threads $PWD/$PEERS/gapbs-bfs -g {scale} -n {roots}"
  gapbs_sssp="OMP_NUM_THREADS=$threads $PWD/$PEERS/gapbs-sssp -g {scale} -n {roots} -d 2"
  # seedref prints BFS and SSSP figures; each sweep keeps its algorithm's.
  seedref_bfs="$bin/seedref {scale} {roots} | grep -v '^sssp'"
  seedref_sssp="$bin/seedref {scale} {roots} | grep -v '^bfs'"
  ecl="NOVERIFY=1 $bin/ecl-mst {file}"

  if [ "${SMALL:-0}" = 1 ]; then
    bfs_scales=10,12 s22=10 roots_bfs=4 roots_sssp=4 reps=2
  else
    bfs_scales=22,24 s22=22 roots_bfs=32 roots_sssp=16 reps=3
  fi
  local -a bfs_peers=(-peer "gapbs-bfs=$gapbs_bfs") sssp_peers=(-peer "gapbs-sssp=$gapbs_sssp") mst_peers=()
  local seedref=0
  if [ "$gpu" = 1 ] && [ -x "$bin/seedref" ]; then
    seedref=1
    sssp_peers+=(-peer "seedref=$seedref_sssp")
  fi
  if [ "$gpu" = 1 ] && [ -x "$bin/ecl-mst" ]; then
    mst_peers+=(-peer "ecl-mst=$ecl")
  fi

  sweep bfs-rmat-permuted bfs rmat -scales "$bfs_scales" -roots "$roots_bfs" -permute \
    -variants gpu/cache-restrict-on,gpu/direction-optimizing-gpu,cpu/do "${bfs_peers[@]}" \
    -name "BFS on R-MAT, permuted (Graph500), with GAPBS"
  if [ "$seedref" = 1 ]; then # seedref at s22 only: its host-side generation at s24 costs a minute
    sweep bfs-rmat-s22-seedref bfs rmat -scales "$s22" -roots "$roots_bfs" -permute \
      -variants gpu/cache-restrict-on -peer "seedref=$seedref_bfs" -name "BFS edge scan on R-MAT s22, with seedref"
  fi
  sweep sssp-rmat-s22 sssp rmat -scales "$s22" -roots "$roots_sssp" -weights int:255 \
    -variants gpu/cache-restrict-on,gpu/cache-restrict-off,gpu/near-far-delta-stepping,cpu/delta "${sssp_peers[@]}" \
    -name "SSSP on R-MAT, int weights 1..255, with GAPBS and seedref"
  sweep mst-rmat-s22 mst rmat -scales "$s22" -reps "$reps" -weights int:255 \
    -variants gpu/gpu,cpu/boruvka "${mst_peers[@]}" -name "MST on R-MAT, int weights 1..255, with ECL-MST"

  echo "=== summary ($out/results)"
  printf '  %s\n' "${summary[@]}"
  grep -h "peer failed" "$out"/*.txt 2> /dev/null | sed 's/^ */  /' || true
  [ "$gpu" = 1 ] || echo "  (no GPU: graphnb's GPU variants ran as host stand-ins; ECL-MST and seedref skipped)"
  exit $status
}

case "${1:-run}" in
prepare) prepare ;;
run) run ;;
*) echo "usage: ops/results.sh [prepare|run]" >&2; exit 2 ;;
esac
