#!/usr/bin/env bash
# ops/kernel-tests.sh — the kernel seen from real Jupyter clients:
#   1. the official conformance suite (jupyter_kernel_test),
#   2. every notebook in notebooks/ executed headless on this machine (the
#      CPU without a GPU) twice — by nbconvert with the kernel, and by
#      graphnb exec — its outputs checked each time; and a notebook of
#      cells that must show alike under both (ops/compare_runners.py),
#   3. a real browser: Chromium running a chart cell and a widgets.Interact
#      (slider and checkbox moved through the DOM, latencies and the idle
#      kernel's CPU printed) in the classic notebook (ops/browsertest).
# The kernelspec goes into a throw-away Jupyter data directory. Artifacts:
# out/notebooks/*.ipynb (nbconvert), out/notebooks/exec/*.ipynb (graphnb exec),
# out/browser/screenshot.png, out/browser/browsertest.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ops/deps.sh
mkdir -p bin out/notebooks out/browser
go build -o bin/graphnb ./cmd/graphnb
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export JUPYTER_DATA_DIR="$data"
bin/graphnb install >/dev/null
py=/usr/bin/python3   # Debian's Python, which has Jupyter

echo "--- conformance suite (jupyter_kernel_test)"
$py ops/conformance.py -v 2>&1 | tee out/conformance.txt | grep -E '^(test_|Ran|OK|FAILED)' || true
grep -q '^OK' out/conformance.txt || { echo "conformance suite failed; see out/conformance.txt"; exit 1; }

echo "--- notebooks, executed by nbconvert and by graphnb exec"
mkdir -p out/notebooks/exec
for nb in notebooks/*.ipynb; do
  name=$(basename "$nb")
  $py -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=graphnb \
      --ExecutePreprocessor.timeout=900 --output-dir out/notebooks "$nb" 2>&1 | tail -1
  $py ops/check_notebook.py "out/notebooks/$name" text/plain text/html image/png
  bin/graphnb exec -timeout 15m -o "out/notebooks/exec/$name" "$nb"
  $py ops/check_notebook.py "out/notebooks/exec/$name" text/plain text/html image/png
done

echo "--- the kernel and graphnb exec show the same for the same cells"
$py ops/compare_runners.py bin/graphnb ops/testdata/runners.ipynb

echo "--- browser (Chromium + classic notebook)"
(cd ops/browsertest && go build -o ../../bin/browsertest .)
bin/browsertest -data "$data" -out out/browser | tee out/browser/browsertest.txt
