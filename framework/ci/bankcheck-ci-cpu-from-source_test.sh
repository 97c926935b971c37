#!/usr/bin/env bash
# `bankcheck-ci-cpu --install-bankcheck` (the workflow's bankcheck-from-source) configures bankcheck
# without its tests and benchmarks, so without the CUDA language, and builds everything. The
# conformance recorder's kernels (CUDA sources) then compiled to nothing and its link failed
# ("undefined reference to bankcheck::conformance::Forms"), failing that route. Configured so, the
# recorder is either not a target or builds. CPU only (nvcc for the configure; one C++ file built).
#
#   framework/ci/bankcheck-ci-cpu-from-source_test.sh SOURCE_DIR NVCC [CMAKE]
set -euo pipefail
(($# >= 2)) || { echo "usage: bankcheck-ci-cpu-from-source_test.sh SOURCE_DIR NVCC [CMAKE]" >&2; exit 2; }
source_dir="$1" nvcc="$2" cmake="${3:-cmake}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-from-source.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# As bankcheck-ci-cpu.sh configures it (its step 3).
"$cmake" -S "$source_dir" -B "$tmp/build" -DBANKCHECK_BUILD_TESTS=OFF -DBANKCHECK_BUILD_BENCHMARKS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; echo "FAILED: configuring bankcheck without its tests" >&2; exit 1; }
target=bankcheck_conformance_record
targets="$("$cmake" --build "$tmp/build" --target help)"
if grep -qE "^\.\.\. $target\$" <<<"$targets"; then
  "$cmake" --build "$tmp/build" --target "$target" -j 2 >"$tmp/build.log" 2>&1 ||
    { tail -n 8 "$tmp/build.log"; echo "FAILED: $target, a target of bankcheck built without its tests, does not build (above)" >&2; exit 1; }
fi
echo "bankcheck-ci-cpu-from-source_test: bankcheck without its tests has no target that cannot build ($target)"
