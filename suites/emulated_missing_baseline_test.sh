#!/usr/bin/env bash
# A case without a baseline in a topic whose other cases have theirs: the emulated program skips
# that case, and the topic's test says skipped (exit 77), naming the case and how to record it,
# not Passed; with BANKCHECK_REQUIRE_EMULATION=1 it fails; a case that fails still fails the topic.
# Skips (77) where the emulated program cannot read SASS (no cuobjdump or nvdisasm).
#   emulated_missing_baseline_test.sh EMULATED_PROGRAM BASELINES_DIR WORK_FOLDER
set -euo pipefail
program=$1 baselines=$2 work=$3
topic=classic_demo gone=classic_demo/smem_tid_x2/1x256
rm -rf "$work" && mkdir -p "$work/baselines/sm_90"
python3 - "$baselines/sm_90/$topic.json" "$work/baselines/sm_90/$topic.json" "$gone" <<'PY'
import json, sys
baseline = json.load(open(sys.argv[1]))
del baseline["cases"][sys.argv[3]]
json.dump(baseline, open(sys.argv[2], "w"), indent=2)
PY
run() {  # run NAME [VAR=value...]: the topic's cases against the doctored folder; prints the exit status
  local name=$1 status=0
  shift
  env "$@" BANKCHECK_BASELINES_DIR="$work/baselines" BANKCHECK_RESULTS_DIR="$work/$name" \
    "$program" --bankcheck_topic=$topic >"$work/$name.log" 2>&1 || status=$?
  echo "$status"
}
fail() { echo "FAILED: $1"; echo "--- $2:"; cat "$work/$2.log"; exit 1; }
plain=$(run plain)
if grep -q "cannot run" "$work/plain.log"; then
  echo "skipped: the emulated program cannot read SASS here ($(grep -m1 -o 'cannot run [a-z]*' "$work/plain.log"))"
  exit 77
fi
[[ $plain == 77 ]] || fail "exit status $plain, not 77 (skipped), for a topic with a case without a baseline" plain
grep -q '^\[       OK \] .*smem_tid/1x256' "$work/plain.log" || fail "the cases with baselines did not pass" plain
grep -qF "bankcheck: skipped: 1 case of 3 has no baseline, so this test checked only the others: KernelSuite/classic_demo.smem_tid_x2/1x256" \
  "$work/plain.log" || fail "no line naming the case without a baseline" plain
grep -qF "BANKCHECK_CASES='$gone'" "$work/plain.log" || fail "no command that records its baseline" plain
required=$(run required BANKCHECK_REQUIRE_EMULATION=1)
[[ $required == 1 ]] || fail "exit status $required, not 1, with BANKCHECK_REQUIRE_EMULATION=1" required
echo "a case without a baseline makes its topic skipped, saying which and how to record it"
