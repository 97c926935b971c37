#!/usr/bin/env bash
# The test command: configure, build, and run every test with ctest. Exits non-zero on any
# failure. Extra arguments go to ctest (e.g. `ci/test.sh -L cpu`, `ci/test.sh -R transpose`).
#
# GPU tests on a machine without a usable GPU are reported as skipped, with the reason (listed at
# the end). With BANKCHECK_REQUIRE_GPU=1 (GPU runners) they fail instead.
# With BANKCHECK_UPDATE_BASELINES=1 the kernel suites record their measured counts into
# baselines/<arch>/ instead of checking them (filter with -R to record some cases only).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bankcheck_build

cd "$BUILD_DIR"
# Each kernel case writes a results fragment here; fragments of an earlier run must not mix in.
export BANKCHECK_RESULTS_DIR="${BANKCHECK_RESULTS_DIR:-$BUILD_DIR/results}"
rm -rf "$BANKCHECK_RESULTS_DIR"
status=0
ctest --output-on-failure -j "$JOBS" --resource-spec-file "$(bankcheck_resource_spec)" "$@" || status=$?

# CTest says which tests were skipped but not why: print each skipped test with its reason.
# (A kernel-suite test runs a topic's cases: it is listed once under its first skipped case's reason.)
awk '
  / Test: /                { name = $NF }
  /: Skipped$/             { getline reason; if (!(name in reasons)) reasons[name] = reason }
  /^\[  SKIPPED \] .* \(/  { if ((name in reasons) && !(name in listed)) { listed[name] = 1; skipped[reasons[name]] = skipped[reasons[name]] "\n    " name } }
  END {
    for (r in skipped) { n = split(skipped[r], lines, "\n") - 1; printf "\nSkipped %d test(s): %s%s\n", n, r, skipped[r] }
  }' Testing/Temporary/LastTest.log 2>/dev/null || true

# One results file for the run (each kernel case wrote its own fragment); JUnit XML per test is
# in test-results/junit/.
if [[ -d "$BANKCHECK_RESULTS_DIR/cases" ]]; then
  "$BUILD_DIR/bin/bankcheck" merge-results "$BANKCHECK_RESULTS_DIR" -o "$BANKCHECK_RESULTS_DIR/results.json" >/dev/null &&
    echo "Results: $BANKCHECK_RESULTS_DIR/results.json; JUnit XML: $BUILD_DIR/test-results/junit/"
fi

exit "$status"
