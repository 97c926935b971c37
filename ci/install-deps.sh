#!/usr/bin/env bash
# Installs the Debian packages bankcheck builds with, if any is missing. As root it installs them;
# otherwise it prints the exact apt-get command and exits 1. The CUDA Toolkit 13 (nvcc, cudart,
# CUPTI) is not a Debian package here: it must already be installed, with nvcc on PATH or in
# /usr/local/cuda/bin.
set -euo pipefail

packages=(cmake make g++ libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "bankcheck: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bankcheck: missing packages: ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "bankcheck: the CUDA Toolkit 13 (nvcc, cudart, CUPTI) was not found." >&2
  echo "Install it from NVIDIA's packages (cuda-toolkit-13-0) and put nvcc on PATH." >&2
  exit 1
fi
