#!/usr/bin/env bash
# ops/gocorpus.sh — runs the Go distribution's own "// run" test programs
# ($(go env GOROOT)/test) under graphnb and prints how many pass; the
# method is in docs/conformance/README.md.
#
#   ops/gocorpus.sh [baseline] [GOCORPUS FLAGS...]
#
# Builds bin/graphnb and bin/gocorpus, then runs the corpus with graphnb
# into out/gocorpus/graphnb (results.json, results.md, _work/). With
# "baseline" it first runs it with plain yaegi into out/gocorpus/yaegi;
# whenever that run exists, graphnb's table shows its classes beside.
# The other arguments go to the graphnb run, e.g. -run '^recover',
# -rename-main (for a graphnb that runs a cell's func main at definition),
# or -check docs/conformance/graphnb.json -allow docs/conformance/allow.txt.
# References from go run are cached in out/gocorpus/cache.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=false
if [ "${1:-}" = baseline ]; then
  baseline=true
  shift
fi

mkdir -p bin
echo "==> building bin/graphnb and bin/gocorpus"
go build -o bin/graphnb ./cmd/graphnb
go build -o bin/gocorpus ./ops/gocorpus

if $baseline; then
  echo "==> plain yaegi"
  bin/gocorpus -engine yaegi -out out/gocorpus/yaegi
fi

compare=()
if [ -f out/gocorpus/yaegi/results.json ]; then
  compare=(-compare out/gocorpus/yaegi/results.json)
fi
echo "==> graphnb"
bin/gocorpus -engine graphnb -graphnb bin/graphnb -out out/gocorpus/graphnb ${compare[@]+"${compare[@]}"} "$@"
