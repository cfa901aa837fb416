#!/usr/bin/env bash
# ops/tour.sh — the main job: a tour of graphnb on this machine.
#
# Until the Jupyter kernel lands this runs the CPU demo of the command-line
# tool (every algorithm once, each result validated) and keeps its output
# in out/tour.txt. Run ./install.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/graphnb ] || { echo "ops/tour.sh: bin/graphnb is missing; run ./install.sh first" >&2; exit 1; }
mkdir -p out
bin/graphnb demo | tee out/tour.txt
echo "(output kept in out/tour.txt)"
