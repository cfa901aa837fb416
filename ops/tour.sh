#!/usr/bin/env bash
# ops/tour.sh — the main job: execute notebooks/00-tour.ipynb headless with
# the graphnb kernel (on the CPU when there is no GPU) and write an HTML
# report to out/tour.html (the executed notebook is out/00-tour.ipynb).
# Run ./install.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/graphnb ] || { echo "ops/tour.sh: bin/graphnb is missing; run ./install.sh first" >&2; exit 1; }
mkdir -p out
py=/usr/bin/python3   # Debian's Python, which has Jupyter
$py -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=graphnb \
    --ExecutePreprocessor.timeout=900 --output-dir out notebooks/00-tour.ipynb
$py ops/check_notebook.py out/00-tour.ipynb text/plain text/html image/png
$py -m nbconvert --to html --output-dir out out/00-tour.ipynb >/dev/null 2>&1
echo "tour report: out/tour.html"
mv out/00-tour.html out/tour.html
