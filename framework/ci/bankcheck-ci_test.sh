#!/usr/bin/env bash
# bankcheck-ci.sh's baselines.patch offers the baselines alone (docs/security.md): a suite runs the
# project's (a pull request's) code, which may write anything into the copy of the baselines folder
# it records into, or beside it. A hand-written CTest project (no compiler, no GPU) whose baseline
# test is stale and whose recording writes a real baseline change plus hostile files: only the
# baseline may reach the patch. CPU only.
set -euo pipefail
# The suites' folders are the test projects' own: ci/test.sh, which runs this under ctest, sets
# BANKCHECK_RESULTS_DIR for bankcheck's own suite, and bankcheck-ci would take it for theirs.
unset BANKCHECK_RESULTS_DIR BANKCHECK_BASELINES_DIR
ci="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-ci.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tmp="$(cd "$tmp" && pwd -P)"
failures=0
fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# project MODE: the source folder (its baselines) and a build folder with one kernel suite whose
# baseline test fails (a stale entry); recorded (BANKCHECK_PRUNE_BASELINES=1) it runs record.sh MODE.
project() {
  rm -rf "$tmp/src" "$tmp/build" "$tmp/artifacts"
  mkdir -p "$tmp/src/baselines/sm_90" "$tmp/build/bankcheck-suites"
  echo '{"cases": {"t/old": 1}}' >"$tmp/src/baselines/sm_90/t.json"
  echo 'notes' >"$tmp/src/baselines/README.txt"
  cat >"$tmp/build/bankcheck-suites/s.suite" <<EOF
target=s
baselines_dir=$tmp/src/baselines
results_dir=$tmp/build/results
test_prefix=s
baseline_files_test=s/baseline_files
EOF
  cat >"$tmp/build/CTestTestfile.cmake" <<EOF
add_test([=[s/baseline_files]=] "/bin/bash" "$tmp/record.sh" "$1")
EOF
}
cat >"$tmp/record.sh" <<'EOF'
#!/bin/bash
[[ "${BANKCHECK_PRUNE_BASELINES:-}" == 1 ]] || { echo "stale entry t/old"; exit 1; }
dir="$BANKCHECK_BASELINES_DIR"
case "$1" in
  hostile)
    echo '{"cases": {}}' >"$dir/sm_90/t.json"           # the real change
    mkdir -p "$dir/../.github/workflows" "$dir/sm_90/deeper"
    echo 'on: push' >"$dir/../.github/workflows/x.yml"   # beside the baselines folder
    echo 'run: evil' >"$dir/sm_90/workflow.yml"          # not a baseline
    ln -s /etc/passwd "$dir/sm_90/passwd.json"            # a link to a file
    ln -s /etc "$dir/sm_90/etc"                           # a link to a folder
    echo '{"secret": 1}' >"$dir/../outside.json"
    ln "$dir/../outside.json" "$dir/sm_90/hard.json"      # a second name of a file outside
    echo '{"cases": {"u/new": 2}}' >"$dir/sm_90/deeper/u.json"  # a baseline below: kept
    ;;
  replace)
    # The copy replaced by a link to a folder of planted files.
    planted="$(cd "$dir/../.." && pwd)/planted"
    mkdir -p "$planted/sm_90"
    echo '{"planted": 1}' >"$planted/sm_90/p.json"
    rm -rf "$dir"
    ln -s "$planted" "$dir"
    ;;
esac
EOF

run_ci() {
  local status=0
  "$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" --artifacts "$tmp/artifacts" --summary '' \
    --bankcheck /bin/true -j 1 >"$tmp/log" 2>&1 || status=$?
  ((status == 1)) || { cat "$tmp/log"; fail "bankcheck-ci exited $status, not 1 (a failed test)"; }
}

project hostile
run_ci
patch="$tmp/artifacts/baselines.patch"
if [[ ! -s "$patch" ]]; then
  cat "$tmp/log"
  fail "no baselines.patch"
else
  grep -q '^+++ b/baselines/sm_90/t.json' "$patch" || fail "the real change to baselines/sm_90/t.json is not in the patch"
  grep -q '^+++ b/baselines/sm_90/deeper/u.json' "$patch" || fail "a new baseline below the arch folder is not in the patch"
  for planted in .github x.yml workflow.yml passwd etc/ hard.json outside.json root: secret README; do
    if grep -qF -- "$planted" "$patch"; then
      fail "the patch offers '$planted' as a baseline"
    fi
  done
  (cd "$tmp/src" && git apply --check "$patch") || fail "the patch does not apply to the source folder"
  diffs="$(grep -c '^diff ' "$patch")"
  ((diffs == 2)) || { cat "$patch"; fail "the patch has $diffs files, not 2"; }
fi
((failures)) || echo "ok: only the baselines' regular JSON files are in the patch"

project replace
run_ci
if [[ -e "$patch" ]]; then
  cat "$patch"
  fail "a patch was written from a folder linked in place of the copy"
elif ! grep -q 'bankcheck-ci: recording replaced the copy of .* with something else' "$tmp/log"; then
  cat "$tmp/log"
  fail "bankcheck-ci did not say that the copy was replaced"
else
  echo "ok: a link in place of the baselines' copy is not followed"
fi

# The emulated program's results (<RESULTS_DIR>-emulated) are read as the measured ones are: a
# stand-in `bankcheck` that logs its calls and reports each folder's cases as the totals line says.
# MEASURED_RAN: how many measured cases ran (0: all skipped, no GPU). Line findings (annotations,
# SARIF) come from the emulated program only where the measured one ran none; its counts are never
# offered as baselines (update-baselines --dry-run is asked of the measured results alone); the
# summary adds both programs' cases up.
emulated_project() {
  project none
  cat >"$tmp/build/CTestTestfile.cmake" <<EOF
add_test([=[s/emulated/t]=] "/bin/bash" "-c" "mkdir -p $tmp/build/results/cases $tmp/build/results-emulated/cases; echo {} >$tmp/build/results/cases/a.json; echo {} >$tmp/build/results-emulated/cases/a.json; exit 1")
EOF
  cat >"$tmp/fake-bankcheck" <<'EOF'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
case "$1" in
  --version) echo "bankcheck 0.0" ;;
  merge-results) echo "{\"from\": \"$2\"}" >"${4:?}" ;;
  report)
    if [[ "$2" == *-emulated.json ]]; then echo "3 cases: 1 passed, 2 failed, 0 skipped"; exit 1; fi
    echo "3 cases: $MEASURED_RAN passed, 0 failed, $((3 - MEASURED_RAN)) skipped" ;;
  update-baselines) exit 0 ;;
esac
EOF
  chmod +x "$tmp/fake-bankcheck"
}
for measured_ran in 0 3; do
  emulated_project
  : >"$tmp/calls"
  status=0
  FAKE_LOG="$tmp/calls" MEASURED_RAN="$measured_ran" GITHUB_ACTIONS=true "$ci" --prebuilt --source "$tmp/src" \
    --build "$tmp/build" --artifacts "$tmp/artifacts" --summary "$tmp/summary.md" --sarif "$tmp/sarif" \
    --bankcheck "$tmp/fake-bankcheck" -j 1 >"$tmp/log" 2>&1 || status=$?
  calls="$(cat "$tmp/calls")"
  ((status == 1)) || fail "emulated cases failing: bankcheck-ci exited $status, not 1"
  grep -q "^merge-results $tmp/build/results-emulated -o $tmp/artifacts/results/s-emulated.json" <<<"$calls" ||
    { echo "$calls"; fail "the emulated results folder was not merged into results/s-emulated.json"; }
  if grep -q 'update-baselines .*s-emulated.json' <<<"$calls"; then
    fail "update-baselines was asked of the emulated results without --emulated-baselines"
  fi
  grep -qF "cases measured on the GPU: 3 ($measured_ran passed, 0 failed, $((3 - measured_ran)) skipped); emulated: 3 (1 passed, 2 failed, 0 skipped)" \
    "$tmp/summary.md" || { cat "$tmp/summary.md"; fail "the summary does not add up both programs' cases"; }
  grep -q 'bankcheck report fails some case of: s-emulated' "$tmp/log" || fail "the emulated failure was not named"
  grep -q '^\*s, the emulated program: ' "$tmp/summary.md" || fail "the summary does not mark the emulated report"
  findings="$(grep -cE '^report .*s-emulated.json --format (github|sarif)' <<<"$calls" || true)"
  if ((measured_ran == 0 && findings != 2)) || ((measured_ran > 0 && findings != 0)); then
    echo "$calls"
    fail "measured cases that ran: $measured_ran; the emulated program's line findings: $findings calls, not $((measured_ran ? 0 : 2))"
  fi
done
((failures)) || echo "ok: the emulated results are reported, counted and kept out of baselines.patch"

# --emulated-baselines: where no measured case ran, the emulated counts that update-baselines
# --emulated would record (its dry run exits 1) are recorded into the copy and offered in
# baselines.patch; where measured cases ran, they are not asked for.
cat >"$tmp/fake-bankcheck-emulated" <<EOF
#!/bin/bash
if [[ "\$1" == update-baselines && "\$2" == *-emulated.json && " \$* " == *" --emulated "* ]]; then
  echo "\$*" >>"\$FAKE_LOG"
  [[ " \$* " != *" --dry-run "* ]] || exit 1
  mkdir -p "\${@: -1}/sm_90" && echo '{"cases": {"t/new": "derived"}}' >"\${@: -1}/sm_90/t.json"
  exit 0
fi
exec "$tmp/fake-bankcheck" "\$@"
EOF
chmod +x "$tmp/fake-bankcheck-emulated"
for measured_ran in 0 3; do
  : >"$tmp/calls"
  FAKE_LOG="$tmp/calls" MEASURED_RAN="$measured_ran" "$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" \
    --artifacts "$tmp/artifacts" --summary '' --bankcheck "$tmp/fake-bankcheck-emulated" --emulated-baselines -j 1 \
    >"$tmp/log" 2>&1 || true
  if ((measured_ran == 0)); then
    grep -q '^+.*"t/new": "derived"' "$tmp/artifacts/baselines.patch" 2>/dev/null ||
      { cat "$tmp/log"; fail "--emulated-baselines without measured cases: no derived baseline in baselines.patch"; }
  elif grep -q -- 'update-baselines .*s-emulated.json.* --emulated' "$tmp/calls"; then
    fail "--emulated-baselines asked for the emulated counts although measured cases ran"
  fi
done
((failures)) || echo "ok: --emulated-baselines offers derived first baselines only where nothing was measured"

# A shard's plan (--shard I/N; docs/ci.md "Sharding"): what each selected topic test of each kernel
# suite program was to run in this shard, as the program lists it, the baselines folder as the patch
# names it, and the shard, for bankcheck-merge to check that the shard reported every case.
project none
cat >"$tmp/suite.sh" <<EOF
#!/bin/bash
case "\$*" in
  --bankcheck_results_dir) echo "$tmp/build/results" ;;
  "--bankcheck_topic=t --bankcheck_list_shard_cases") echo "t/shard\$GTEST_SHARD_INDEX-of-\$GTEST_TOTAL_SHARDS" ;;
  "--bankcheck_topic=u --bankcheck_list_shard_cases") echo "u/shard\$GTEST_SHARD_INDEX" ;;
  *) exit 0 ;;
esac
EOF
chmod +x "$tmp/suite.sh"
cat >>"$tmp/build/CTestTestfile.cmake" <<EOF
add_test([=[s/t]=] "$tmp/suite.sh" --bankcheck_topic=t "--gtest_output=xml:$tmp/build/t.xml")
add_test([=[s/u]=] "$tmp/suite.sh" --bankcheck_topic=u "--gtest_output=xml:$tmp/build/u.xml")
EOF
"$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" --artifacts "$tmp/artifacts" --summary '' \
  --bankcheck /bin/true -j 1 --shard 2/3 -- -E 's/u' >"$tmp/log" 2>&1 || true
[[ "$(cat "$tmp/artifacts/plan/shard" 2>/dev/null)" == 2/3 ]] || { cat "$tmp/log"; fail "plan/shard is not 2/3"; }
[[ "$(cat "$tmp/artifacts/plan/s.txt" 2>/dev/null)" == t/shard1-of-3 ]] ||
  fail "plan/s.txt is not the selected topic's shard cases: $(cat "$tmp/artifacts/plan/s.txt" 2>&1)"
[[ "$(cat "$tmp/artifacts/plan/baselines" 2>/dev/null)" == baselines ]] || fail "plan/baselines is not 'baselines'"
"$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" --artifacts "$tmp/artifacts" --summary '' \
  --bankcheck /bin/true -j 1 >"$tmp/log" 2>&1 || true
[[ ! -e "$tmp/artifacts/plan" ]] || fail "an unsharded run left a plan"
((failures)) || echo "ok: a shard keeps its plan (plan/shard, plan/<suite>.txt, plan/baselines)"

# No GPU (no CUDA_VISIBLE_DEVICES, an nvidia-smi that lists none): the log does not promise GPU tests
# per GPU.
project hostile
mkdir -p "$tmp/nogpu-bin"
printf '#!/bin/sh\nexit 0\n' >"$tmp/nogpu-bin/nvidia-smi"
chmod +x "$tmp/nogpu-bin/nvidia-smi"
env -u CUDA_VISIBLE_DEVICES PATH="$tmp/nogpu-bin:$PATH" "$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" \
  --artifacts "$tmp/artifacts" --summary '' --bankcheck /bin/true -j 1 >"$tmp/log" 2>&1 || true
if grep -q 'GPU tests at a time per GPU' "$tmp/log" || ! grep -q 'no GPU found' "$tmp/log"; then
  cat "$tmp/log"
  fail "without a GPU the log speaks of GPU tests per GPU, or does not say no GPU was found"
fi

# After ctest, the skipped tests and their reasons (ctest says only "Skipped"): a GoogleTest skip's
# message, a suite program's "bankcheck: every case was skipped: ...", a test that says nothing.
project none
cat >"$tmp/skipper.sh" <<'EOF'
#!/bin/bash
case "$1" in
  gtest) printf '[ RUN      ] s/a.x\nfile.cc:12: Skipped\nno usable GPU: no driver\n[  SKIPPED ] s/a.x (1 ms)\n' ;;
  topic) echo "bankcheck: every case was skipped: BANKCHECK_CASES='a/*' selects no case of topic 'b'" ;;
  quiet) ;;
esac
exit 77
EOF
chmod +x "$tmp/skipper.sh"
for kind in gtest topic quiet; do
  cat >>"$tmp/build/CTestTestfile.cmake" <<EOF
add_test([=[s/$kind]=] "$tmp/skipper.sh" $kind)
set_tests_properties([=[s/$kind]=] PROPERTIES SKIP_RETURN_CODE 77)
EOF
done
"$ci" --prebuilt --source "$tmp/src" --build "$tmp/build" --artifacts "$tmp/artifacts" --summary '' \
  --bankcheck /bin/true -j 1 -- -R '^s/(gtest|topic|quiet)$' >"$tmp/log" 2>&1 || true
for expected in "Skipped 1 test(s): no usable GPU: no driver" "    s/gtest" \
  "Skipped 1 test(s): BANKCHECK_CASES='a/*' selects no case of topic 'b'" "    s/topic" \
  "Skipped 1 test(s): no reason printed (ctest -V -R '^s/quiet\$' shows its output)" "    s/quiet"; do
  grep -qxF -- "$expected" "$tmp/log" || { cat "$tmp/log"; fail "the log lacks the line: $expected"; }
done
((failures)) || echo "ok: the skipped tests are listed with their reasons"

if ((failures)); then
  echo "bankcheck-ci_test: $failures check(s) failed"
  exit 1
fi
echo "bankcheck-ci_test: passed"
