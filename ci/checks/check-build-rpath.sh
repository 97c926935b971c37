#!/usr/bin/env bash
# Every ELF file in a build folder, and every one that `cmake --install` of it puts into a fresh
# prefix, has no empty or relative RPATH/RUNPATH entry (ci/checks/check-rpath.py: the loader would read it
# as the current folder). What pip put in the build folder (build/cuda-tools, build/cute-headers,
# venvs) is not the build's and is left out. ctest: bankcheck_rpath (label cpu).
#
#   ci/checks/check-build-rpath.sh BUILD_DIR [CMAKE]   CMAKE: the cmake that installs (default: on PATH)
set -euo pipefail
(($# >= 1)) || { echo "usage: ci/checks/check-build-rpath.sh BUILD_DIR [CMAKE]" >&2; exit 2; }
build="$1" cmake="${2:-cmake}"
check="$(dirname "${BASH_SOURCE[0]}")/check-rpath.py"
python3 "$check" --skip-pip "$build"
prefix="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-rpath-install.XXXXXX")"
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix/prefix" >"$prefix/install.log" 2>&1 ||
  { cat "$prefix/install.log" >&2; echo "ci/checks/check-build-rpath.sh: cmake --install $build failed (above)" >&2; exit 1; }
[[ -d "$prefix/prefix" ]] || { echo "ci/checks/check-build-rpath.sh: cmake --install $build installed nothing (BANKCHECK_INSTALL off?)"; exit 0; }
python3 "$check" "$prefix/prefix"
