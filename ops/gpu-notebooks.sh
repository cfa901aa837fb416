#!/usr/bin/env bash
# ops/gpu-notebooks.sh — executes the study notebooks on the GPU machine, so
# the committed notebooks carry real GPU outputs. The machine has no Go and
# no Jupyter, only the binary:
#
#   here:  WITH_GRAPHNB=1 PKGS= ops/gpu-test.sh build
#   there: ops/gpu-notebooks.sh            (with build/gpu carried along)
#   here:  tar -xf $FILES_AT/notebooks.tar -C notebooks
#
# With the device tool, name the kind (nvidia-h100-x1) when the outputs
# will be read as an H100's: a call that names none may run on an H200
# (the notebooks print the device, so a mix-up shows, but costs a rerun).
#
# Each notebook runs with `graphnb exec` in its own directory, choosing its
# sizes from the device in its first cells. The executed notebooks are
# packed into one file, $OUT/notebooks.tar (the device tool returns only a
# few files per call); a notebook whose run fails is packed too, with its
# error, and the script exits 1. Environment: NOTEBOOKS (the notebooks to
# run, default notebooks/0[1-6]*.ipynb), CELL_TIMEOUT (per cell, default
# 10m), OUT (default out/gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu}
work=$(mktemp -d)
mkdir -p "$out"
status=0
for nb in ${NOTEBOOKS:-notebooks/0[1-6]*.ipynb}; do
  build/gpu/graphnb exec -timeout "${CELL_TIMEOUT:-10m}" -o "$work/$(basename "$nb")" "$nb" || status=1
  tar -C "$work" -cf "$out/notebooks.tar" .   # after each notebook: a time limit keeps what ran
done
exit $status
