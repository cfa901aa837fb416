#!/usr/bin/env bash
# ops/test.sh — the whole test suite, as CI runs it (.ci/run calls this).
#
# Steps: formatting, vet, every package's tests, the race detector over the
# concurrent code, a short run of every fuzz target, one pass of every
# benchmark so none of them rots, the Go distribution's own test programs
# run as notebooks (ops/gocorpus.sh, docs/conformance), and the kernel seen from real Jupyter
# clients (ops/kernel-tests.sh: conformance suite, notebooks, browser),
# whose Debian packages ops/deps.sh installs when missing. Environment:
#   FUZZTIME   budget per fuzz target (default 200000x executions; 0 skips).
#              A count, not a duration: Go 1.26's fuzz coordinator can fail a
#              duration-bounded run at its deadline with no crasher
#              (golang/go#75804). Each new interesting input is minimised
#              for at most 2000 executions (-fuzzminimizetime; Go's default,
#              a minute each, let inputs grown from a large seed or a local
#              fuzz cache stall the stage for minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-200000x}

step() { printf '\n==> %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "these files need gofmt -w:"; echo "$unformatted"; exit 1
fi

step "go vet (with and without cgo)"
go vet ./...
CGO_ENABLED=0 go vet ./...
(cd ops/browsertest && go vet ./...)

step "go test"
# -timeout: a package's fake-GPU tests take minutes on two cores beside
# the other packages' (go test's default, 10 minutes a package, is close).
go test -count=1 -timeout 30m ./...

step "go test -race (short mode)"
go test -count=1 -timeout 30m -race -short ./...

if [ "$FUZZTIME" != "0" ]; then
  step "fuzz targets, $FUZZTIME each"
  for pkg in $(go list ./...); do
    dir=$(go list -f '{{.Dir}}' "$pkg")
    for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
      echo "--- $pkg $target"
      go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 2000x "$pkg"
    done
  done
fi

step "benchmarks, one iteration each (short mode)"
go test -count=1 -short -run '^$' -bench . -benchtime 1x ./... >/dev/null

step "Go's own test programs as notebooks (docs/conformance): no wrong result, no crash, no timeout, no fewer passes"
ops/gocorpus.sh -timeout 5m -check docs/conformance/graphnb.json -allow docs/conformance/allow.txt

step "kernel from Jupyter clients: conformance, notebooks, browser"
ops/kernel-tests.sh

step "all tests passed"
