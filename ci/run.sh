#!/usr/bin/env bash
# The main job: configure, build, run the CPU checks and every kernel suite, and print the report.
#
#   build/results/results.json     every measured launch, with the run's metadata
#   build/results/report.md        the Markdown summary (also appended to $GITHUB_STEP_SUMMARY)
#   build/results/junit/*.xml      GoogleTest's JUnit XML
#
# Exits non-zero when a check fails. On a machine without a usable GPU it says so, runs what needs
# no GPU, and reports the GPU cases as skipped with the reason; with --require-gpu (the same as
# BANKCHECK_REQUIRE_GPU=1; GPU runners) that is a failure instead, so a runner that lost its GPU,
# its driver or its counter permission fails.
#
#   ci/run.sh                  the main job
#   ci/run.sh --require-gpu    the same on a GPU runner: no usable GPU fails
#   ci/run.sh --help           this help, and nothing built
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

for argument in "$@"; do
  case "$argument" in
    -h | --help) bankcheck_help "$0"; exit 0 ;;
    --require-gpu) export BANKCHECK_REQUIRE_GPU=1 ;;
    *) echo "bankcheck: error: ci/run.sh takes no argument but --require-gpu and --help (got '$argument');" \
         "see ci/run.sh --help" >&2; exit 2 ;;
  esac
done

bankcheck_build

results="${BANKCHECK_RESULTS_DIR:-$BUILD_DIR/results}"
export BANKCHECK_RESULTS_DIR="$results"
rm -rf "$results"
mkdir -p "$results/junit"
status=0

echo
echo "== CPU checks: annotations against the CPU bank model, baseline files"
"$BUILD_DIR/suites/bankcheck_kernel_suite_annotations" --gtest_brief=1 \
  --gtest_output="xml:$results/junit/annotations.xml" || status=1

echo
echo "== Kernel suites on the GPU (log: $results/kernel_suite.log)"
suite_status=0
"$BUILD_DIR/suites/bankcheck_kernel_suite" --gtest_output="xml:$results/junit/kernel_suite.xml" \
  >"$results/kernel_suite.log" 2>&1 || suite_status=$?
((suite_status == 0 || suite_status == 77)) || status=1  # 77: every case skipped (no usable GPU)
grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$results/kernel_suite.log" || true
no_gpu=$(grep -m1 -oE '(GPU test skipped, no usable GPU|BANKCHECK_REQUIRE_GPU=1 is set but there is no usable GPU): .*' \
  "$results/kernel_suite.log" || true)
if [[ -n "$no_gpu" ]]; then
  echo
  echo "No usable GPU on this machine. ${no_gpu#*: }"
  echo "Ran the CPU checks only; skipped every kernel suite case (listed as skipped in the report)."
fi

echo
"$BUILD_DIR/bin/bankcheck" merge-results "$results" -o "$results/results.json" >/dev/null
# The verdicts the run itself reached, against whatever baselines folder it used
# (BANKCHECK_BASELINES_DIR or the source tree's): the summary must agree with the log and the exit code.
# Its exit status is 1 when a case fails (README.md, "When a case fails": the rule the suite applied,
# so the suite's run has failed on it already); the report is still printed and the summary
# written; 2 (unreadable results) fails the job too.
report_status=0
"$BUILD_DIR/bin/bankcheck" report "$results/results.json" -o "$results/report.md" || report_status=$?
cat "$results/report.md" 2>/dev/null || true
((report_status == 0)) || status=1
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  cat "$results/report.md" >>"$GITHUB_STEP_SUMMARY"
fi

if ((status != 0)); then
  echo
  echo "bankcheck: checks failed. Failures:"
  grep -E -B2 -A12 ': Failure$' "$results/kernel_suite.log" | head -200 || true
fi
exit "$status"
