#!/usr/bin/env bash
# `ci/test.sh --help` and `ci/run.sh --help` (also after --require-gpu) print their help and exit 0
# without configuring or building anything (their build folder is not even created); ci/run.sh
# refuses other arguments, and `ci/run.sh --require-gpu` runs the suite with BANKCHECK_REQUIRE_GPU=1
# (on a prebuilt folder of stand-in programs that say what they were given).
set -euo pipefail
ci="$(dirname "${BASH_SOURCE[0]}")"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-help.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
export BANKCHECK_BUILD_DIR="$dir/build"
failures=0
failed() {
  echo "FAILED: $1" >&2
  failures=$((failures + 1))
}

for command in "test.sh --help" "test.sh -h" "run.sh --help" "run.sh -h" "run.sh --require-gpu --help"; do
  read -ra words <<<"$command"
  status=0
  output="$("$ci/${words[0]}" "${words[@]:1}" 2>&1)" || status=$?
  ((status == 0)) || failed "ci/$command exited $status"
  [[ "$output" == *"ci/run.sh --help"* || "$output" == *"ci/test.sh --help"* ]] ||
    failed "ci/$command did not print its help: $output"
  [[ "$output" != *"#"* ]] || failed "ci/$command printed comment marks: $output"
  [[ ! -e "$BANKCHECK_BUILD_DIR" ]] || failed "ci/$command created $BANKCHECK_BUILD_DIR"
done
status=0
output="$("$ci/run.sh" --topic x 2>&1)" || status=$?
((status == 2)) && [[ "$output" == "bankcheck: error: ci/run.sh takes no argument but --require-gpu and --help"* ]] ||
  failed "ci/run.sh --topic x: expected exit 2 and an error, got $status: $output"
[[ ! -e "$BANKCHECK_BUILD_DIR" ]] || failed "ci/run.sh --topic x created $BANKCHECK_BUILD_DIR"

# BANKCHECK_PREBUILT=1 takes the build folder as it is: stand-ins for the programs ci/run.sh runs.
prebuilt="$dir/prebuilt"
mkdir -p "$prebuilt/suites" "$prebuilt/bin"
printf '#!/bin/sh\nexit 0\n' >"$prebuilt/suites/bankcheck_kernel_suite_annotations"
printf '#!/bin/sh\necho "require_gpu=${BANKCHECK_REQUIRE_GPU:-none}"\n' >"$prebuilt/suites/bankcheck_kernel_suite"
printf '#!/bin/sh\nexit 0\n' >"$prebuilt/bin/bankcheck"
chmod +x "$prebuilt/suites/"* "$prebuilt/bin/bankcheck"
for flag in "" --require-gpu; do
  expected=none
  [[ -z "$flag" ]] || expected=1
  status=0
  output="$(env -u BANKCHECK_REQUIRE_GPU -u BANKCHECK_RESULTS_DIR -u GITHUB_STEP_SUMMARY BANKCHECK_PREBUILT=1 \
    BANKCHECK_BUILD_DIR="$prebuilt" "$ci/run.sh" ${flag:+"$flag"} 2>&1)" || status=$?
  ((status == 0)) || failed "ci/run.sh $flag on stand-ins exited $status: $output"
  grep -qx "require_gpu=$expected" "$prebuilt/results/kernel_suite.log" ||
    failed "ci/run.sh $flag: the suite did not run with BANKCHECK_REQUIRE_GPU=$expected: $(cat "$prebuilt/results/kernel_suite.log")"
done

((failures == 0)) || exit 1
echo "ci/help_test.sh: all passed"
