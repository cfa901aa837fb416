#!/usr/bin/env bash
# ops/deps.sh — install the Debian packages graphnb's kernel, notebooks and
# tests use, when they are missing: Debian's Jupyter (used with
# /usr/bin/python3), the conformance suite and Chromium for the browser
# test. Safe to run again; does nothing when everything is there.
set -euo pipefail

packages=(jupyter-notebook jupyter-nbconvert python3-jupyter-client python3-nbclient
          python3-ipykernel python3-jupyter-kernel-test python3-nbformat chromium
          jupyter-nbextension-jupyter-js-widgets)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ops/deps.sh: these packages are missing and there is no apt-get: ${missing[*]}" >&2
  echo "install Jupyter (notebook, nbconvert, jupyter_client, nbclient, ipykernel, jupyter_kernel_test) and Chromium by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ops/deps.sh: run as root, or install: apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "==> installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
