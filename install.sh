#!/usr/bin/env bash
# install.sh — set up graphnb on a fresh Debian machine with Go.
#
# Installs the Debian packages Jupyter needs when they are missing (see
# ops/deps.sh; needs root or sudo), builds bin/graphnb and installs the
# "graphnb" kernelspec for this user (JUPYTER_DATA_DIR is honoured).
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v go >/dev/null 2>&1; then
  echo "install.sh: Go is not on PATH; install Go 1.24 or newer (https://go.dev/dl) and retry" >&2
  exit 1
fi
ops/deps.sh
echo "==> building bin/graphnb"
mkdir -p bin
go build -o bin/graphnb ./cmd/graphnb
bin/graphnb install
echo "==> installed $(bin/graphnb version); start Jupyter with: jupyter notebook   (kernel: Go (graphnb))"
