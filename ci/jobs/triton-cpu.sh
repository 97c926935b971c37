#!/usr/bin/env bash
# The pytest plugin's CPU mode (docs/python.md) on examples/python's Triton tutorial kernels, from the
# index's wheels: examples/python/test_triton_cpu_gate.py in a venv of Triton, numpy and pytest
# (ci/requirements/triton-cpu-requirements.txt, hash-pinned; no torch), kept in
# $BUILD_DIR/triton-cpu/venv and made again when the file changes. The gate runs pytest with the
# plugin of the sources and --bankcheck-cpu over test_triton_tutorials.py: each launch compiled by
# Triton for sm_90 and run in the emulator (this build's build/lib/libbankcheck_emulate_c.so and
# build/bin/bankcheck, which ci/test.sh built), checked against examples/python/baselines, every case
# decided and matching; then again against a copy with one baseline doctored to one wavefront
# fewer, which must fail naming the case and its Python line. It records nothing. Triton's compile
# cache is kept in $BUILD_DIR/triton-cpu/cache (a later run compiles nothing that did not change).
# Prints its seconds. Exit status: pytest's; 0 with a note where PyPI cannot be reached (1 in CI).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

start=$SECONDS
work="$BUILD_DIR/triton-cpu"
for built in "$BUILD_DIR/bin/bankcheck" "$BUILD_DIR/lib/libbankcheck_emulate_c.so"; do
  [[ -e "$built" ]] || { echo "ci/jobs/triton-cpu.sh: error: $built is not built (ci/test.sh builds it)" >&2; exit 1; }
done
bankcheck_pinned_venv "$work/venv" "$BANKCHECK_ROOT/ci/requirements/triton-cpu-requirements.txt" \
  "the pytest plugin's CPU mode" || exit 0
export BANKCHECK="$BUILD_DIR/bin/bankcheck" BANKCHECK_EMULATE_LIBRARY="$BUILD_DIR/lib/libbankcheck_emulate_c.so"
export TRITON_CACHE_DIR="$work/cache" TRITON_DEFAULT_FP_FUSION=1 PYTHONDONTWRITEBYTECODE=1
status=0
"$work/venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$BANKCHECK_ROOT/examples/python/test_triton_cpu_gate.py" ||
  status=$?
echo "ci/jobs/triton-cpu.sh: the CPU mode gate over Triton's tutorial kernels: exit status $status in $((SECONDS - start)) s"
exit "$status"
