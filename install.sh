#!/usr/bin/env bash
# install.sh — set up graphnb on a fresh Debian machine with Go.
#
# Builds the graphnb binary into bin/. Later steps (the Jupyter kernel) add
# their own set-up here. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v go >/dev/null 2>&1; then
  echo "install.sh: Go is not on PATH; install Go 1.24 or newer (https://go.dev/dl) and retry" >&2
  exit 1
fi

echo "==> building bin/graphnb"
mkdir -p bin
go build -o bin/graphnb ./cmd/graphnb
echo "==> installed $(bin/graphnb version)"
