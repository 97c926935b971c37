#!/usr/bin/env bash
# First baselines from a GPU-less CI run, end to end (README.md, docs/ci.md "First baselines without
# a GPU"): a project with no baselines, its emulated suite run by bankcheck-ci --emulated-baselines
# (what bankcheck-ci-cpu --emulated-baselines and the CPU-gate workflow's `emulated-baselines`
# input run), gives a baselines.patch of the decided cases' derived counts ("counters": "emulated"),
# the undecided case left out with its reason printed; `git apply --check` accepts the patch, and
# with it applied the same gate passes. The project is this build's emulated program with an empty
# baselines folder, two of its topics: classic_demo (decided) and launch_paths/device_launch (a
# device-side launch, undecided). Skips (77) where the emulated program cannot read SASS.
#   bankcheck-ci-first-baselines_test.sh EMULATED_PROGRAM BANKCHECK_COMMAND WORK_FOLDER
set -euo pipefail
program="$(realpath "$1")" cli="$(realpath "$2")" work=$3
ci="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-ci.sh"
rm -rf "$work"
mkdir -p "$work/src/baselines" "$work/build/bankcheck-suites"
work="$(cd "$work" && pwd -P)"
# Its own repository: the patch's paths are from the project's root, as in a real checkout.
git init -q "$work/src"
touch "$work/src/baselines/.keep"
export BANKCHECK_BASELINES_DIR="$work/src/baselines" BANKCHECK_RESULTS_DIR="$work/build/results"
export BANKCHECK_CASES='classic_demo/*,launch_paths/device_launch' BANKCHECK_COUNTERS=emulate
unset GTEST_SHARD_INDEX GTEST_TOTAL_SHARDS BANKCHECK_REQUIRE_EMULATION BANKCHECK_UPDATE_BASELINES
cat >"$work/build/bankcheck-suites/s.suite" <<EOF
target=s
baselines_dir=$work/src/baselines
results_dir=$work/build/results
test_prefix=KernelSuite
EOF
for topic in classic_demo launch_paths; do
  cat >>"$work/build/CTestTestfile.cmake" <<EOF
add_test([=[KernelSuite/emulated/$topic]=] "$program" --bankcheck_topic=$topic)
set_tests_properties([=[KernelSuite/emulated/$topic]=] PROPERTIES LABELS emulate SKIP_RETURN_CODE 77)
EOF
done
failures=0
fail() {
  echo "FAILED: $1"
  [[ -z "${2:-}" ]] || { echo "--- $2:"; cat "$2"; }
  failures=$((failures + 1))
}
gate() {  # gate NAME [bankcheck-ci options]: prints the exit status; the log in $work/NAME.log
  local name=$1 status=0
  shift
  # One run for every topic test, as the CTest file that bankcheck_add_kernel_suite generates gives.
  BANKCHECK_RUN_STARTED="$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)" \
    "$ci" --prebuilt --source "$work/src" --build "$work/build" --artifacts "$work/$name" --summary '' \
    --bankcheck "$cli" -j 1 "$@" >"$work/$name.log" 2>&1 || status=$?
  echo "$status"
}

first=$(gate first --emulated-baselines)
if grep -q "cannot run" "$work/first.log"; then
  echo "skipped: the emulated program cannot read SASS here ($(grep -m1 -o 'cannot run [a-z]*' "$work/first.log"))"
  exit 77
fi
patch="$work/first/baselines.patch"
[[ $first == 1 ]] || fail "the first run exited $first, not 1 (cases without a baseline)" "$work/first.log"
if [[ ! -s "$patch" ]]; then
  fail "no baselines.patch" "$work/first.log"
else
  grep -q '^+++ b/baselines/sm_90/classic_demo.json$' "$patch" || fail "the patch does not create classic_demo.json" "$patch"
  grep -q '"counters": "emulated"' "$patch" || fail "the patch's baselines are not marked derived" "$patch"
  for case in smem_tid/1x256 smem_tid_x2/1x256 smem_tid_x32/1x256; do
    grep -qF "\"classic_demo/$case\"" "$patch" || fail "the patch lacks classic_demo/$case" "$patch"
  done
  ! grep -q 'device_launch\|launch_paths' "$patch" || fail "the undecided case is in the patch" "$patch"
  (cd "$work/src" && git apply --check "$patch") || fail "git apply --check refuses the patch" "$patch"
fi
grep -qF "left alone: launch_paths/device_launch (skipped: not decided: " "$work/first.log" ||
  fail "the undecided case's reason is not printed" "$work/first.log"
grep -qF "Recording 3 of 4 cases" "$work/first.log" || fail "the log does not say what was recorded" "$work/first.log"

(cd "$work/src" && git apply "$patch") || { fail "git apply failed"; exit 1; }
second=$(gate second)
[[ $second == 0 ]] || fail "with the patch applied the gate exited $second, not 0" "$work/second.log"
[[ ! -e "$work/second/baselines.patch" ]] || fail "the second run offered another patch" "$work/second/baselines.patch"
grep -qF "emulated: 4 (3 passed, 0 failed, 1 skipped)" "$work/second.log" ||
  fail "the second run's cases are not 3 passed and 1 skipped" "$work/second.log"

if ((failures)); then
  echo "bankcheck-ci-first-baselines_test: $failures check(s) failed"
  exit 1
fi
echo "ok: first baselines from the emulator: a patch git apply accepts, after which the gate passes"
