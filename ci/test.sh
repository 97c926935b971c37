#!/usr/bin/env bash
# The test command: configure, build, and run every test with ctest. Exits non-zero on any
# failure. Extra arguments go to ctest (e.g. `ci/test.sh -L cpu`).
#
#   ci/test.sh --help           this help, and nothing built
#   ci/test.sh --topic NAME     the kernel suite's test of that topic (every case whose name
#                               begins with "NAME/"; exactly: --topic transpose is not transpose16)
#                               and the CPU model checks of its cases
#   ci/test.sh --case PATTERN   the kernel cases whose names match PATTERN (BANKCHECK_CASES: glob
#                               patterns separated by ','), in their topics' tests, and their model
#                               checks (those of the topics' other cases skip); e.g.
#                               --case 'transpose/padded*'
# Both may be repeated, but not mixed; they select with ctest -R, so give no -R of your own.
#   ci/test.sh --shard I/N      shard I of N (1 <= I <= N) of every GoogleTest program's tests, by
#                               GoogleTest's protocol (GTEST_SHARD_INDEX=I-1, GTEST_TOTAL_SHARDS=N):
#                               the kernel suites' topic tests run their shard of the suite's cases
#                               (a topic with none in it skips, saying so); other tests run whole in
#                               every shard. Merge the shards' results with `bankcheck merge-results
#                               DIR1 DIR2 ... -o results.json` (docs/ci.md, "Sharding"). To split
#                               CTest's tests instead (whole topics), give ctest `-I I,,N`.
#
# GPU tests on a machine without a usable GPU are reported as skipped, with the reason (listed at
# the end). With BANKCHECK_REQUIRE_GPU=1 (GPU runners) they fail instead.
# With BANKCHECK_UPDATE_BASELINES=1 the kernel suites record their measured counts into
# baselines/<arch>/ instead of checking them (with --topic or --case: those cases only).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage_error() {
  echo "ci/test.sh: $1" >&2
  exit 2
}
topics=() cases=() ctest_args=()
while (($#)); do
  case "$1" in
    -h | --help) bankcheck_help "$0"; exit 0 ;;
    --topic | --case) (($# >= 2)) || usage_error "$1 needs a value"; set -- "$1=$2" "${@:3}" ;;
    --topic=*) topics+=("${1#*=}"); shift ;;
    --case=) usage_error "--case needs a pattern" ;;
    --case=*) cases+=("${1#*=}"); shift ;;
    --shard) (($# >= 2)) || usage_error "--shard needs I/N"; set -- "$1=$2" "${@:3}" ;;
    --shard=*)
      shard="${1#*=}"
      [[ "$shard" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2])) ||
        usage_error "--shard takes I/N with 1 <= I <= N (shard I of N), not '$shard'"
      export GTEST_SHARD_INDEX=$((BASH_REMATCH[1] - 1)) GTEST_TOTAL_SHARDS="${BASH_REMATCH[2]}"
      shift ;;
    *) ctest_args+=("$1"); shift ;;
  esac
done
((${#topics[@]} == 0 || ${#cases[@]} == 0)) ||
  usage_error "give --topic or --case, not both (a pattern names its topic: --case 'transpose/padded*')"
if ((${#topics[@]} + ${#cases[@]})); then
  for arg in ${ctest_args[@]+"${ctest_args[@]}"}; do
    [[ "$arg" != -R* && "$arg" != --tests-regex* ]] || usage_error "--topic and --case select with -R: give no -R"
  done
fi

bankcheck_build

# --topic and --case: the anchored ctest -R of the kernel suite's topic tests ("<prefix>/<topic>")
# and their model checks ("<prefix>/model/<topic>.<rest>"), and BANKCHECK_CASES.
if ((${#topics[@]} + ${#cases[@]})); then
  suite="$BUILD_DIR/suites/bankcheck_kernel_suite"
  prefix="$(sed -n 's/^test_prefix=//p' "$BUILD_DIR/bankcheck-suites/bankcheck_kernel_suite.suite")"
  known="$("$suite" --bankcheck_list_topics)"
  for topic in "${topics[@]}"; do
    grep -qxF -- "$topic" <<<"$known" || usage_error "no topic '$topic'; the topics: $(paste -sd' ' <<<"$known")"
  done
  if ((${#cases[@]})); then
    BANKCHECK_CASES="$(IFS=,; echo "${cases[*]}")"
    export BANKCHECK_CASES
    # A selection of no case of any suite fails the program, saying so; one of the corpus's only
    # lists nothing here.
    selected="$("$suite" --bankcheck_list_cases)" || exit 2
    [[ -n "$selected" ]] || usage_error "BANKCHECK_CASES='$BANKCHECK_CASES' selects no case of the kernel suite"
    mapfile -t topics < <(cut -d/ -f1 <<<"$selected" | sort -u)
    echo "bankcheck: $(grep -c . <<<"$selected") case(s) selected by BANKCHECK_CASES='$BANKCHECK_CASES'"
  fi
  regex_escape() { sed 's/[][\\.*^$()+?{}|]/\\&/g'; }  # each line as a regex that matches it alone
  regex="^$(regex_escape <<<"$prefix")/(model/)?($(printf '%s\n' "${topics[@]}" | regex_escape | paste -sd'|'))(\\.|\$)"
  ctest_args+=(-R "$regex")
fi

cd "$BUILD_DIR"
# Each kernel case writes a results fragment here; fragments of an earlier run must not mix in.
export BANKCHECK_RESULTS_DIR="${BANKCHECK_RESULTS_DIR:-$BUILD_DIR/results}"
rm -rf "$BANKCHECK_RESULTS_DIR"
# The emulated program's go beside it (docs/emulate.md), where the program says.
emulated="$BUILD_DIR/suites/bankcheck_kernel_suite_emulated"
if [[ -x "$emulated" ]]; then rm -rf "$("$emulated" --bankcheck_results_dir)"; fi
# The corpus's (corpus/CMakeLists.txt) are its own, whatever BANKCHECK_RESULTS_DIR says.
for corpus in "$BUILD_DIR/corpus/bankcheck_corpus" "$BUILD_DIR/corpus/bankcheck_corpus_emulated"; do
  if [[ -x "$corpus" ]]; then rm -rf "$(env -u BANKCHECK_RESULTS_DIR "$corpus" --bankcheck_results_dir)"; fi
done
status=0
# The layers (ci/checks/layers.py, docs/architecture.md) hold whatever ctest is given to select.
python3 "$BANKCHECK_ROOT/ci/checks/layers.py" || status=1
ctest_output="$BUILD_DIR/Testing/ctest-output.log"
mkdir -p "$BUILD_DIR/Testing"
set +e
# It prints the skipped tests below, from ctest's console: the build's CTestCustom.cmake does not.
BANKCHECK_PRINT_SKIPPED=0 ctest --output-on-failure -j "$JOBS" --resource-spec-file "$(bankcheck_resource_spec)" ${ctest_args[@]+"${ctest_args[@]}"} 2>&1 |
  tee "$ctest_output"
ctest_status=${PIPESTATUS[0]}
set -e
((ctest_status == 0)) || status=$ctest_status

# CTest says which tests were skipped but not why: each skipped test under its reason, as
# bankcheck-ci prints them.
"$BANKCHECK_ROOT/framework/ci/bankcheck-ci.sh" --print-skipped "$ctest_output" Testing/Temporary/LastTest.log

# One results file for the run (each kernel case wrote its own fragment); JUnit XML per test is
# in test-results/junit/.
if [[ -d "$BANKCHECK_RESULTS_DIR/cases" ]]; then
  "$BUILD_DIR/bin/bankcheck" merge-results "$BANKCHECK_RESULTS_DIR" -o "$BANKCHECK_RESULTS_DIR/results.json" >/dev/null &&
    echo "Results: $BANKCHECK_RESULTS_DIR/results.json; JUnit XML: $BUILD_DIR/test-results/junit/"
fi

exit "$status"
