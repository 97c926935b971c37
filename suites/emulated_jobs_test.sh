#!/usr/bin/env bash
# The emulated program's cases in several processes at once (BANKCHECK_JOBS=3) against one at a
# time: the same exit status, every case run once and printed whole (its RUN and OK lines in one
# child's output), and the same case records, times aside. Skips (77) where the emulated program
# cannot read SASS (no cuobjdump or nvdisasm: its cases skip).
#   emulated_jobs_test.sh EMULATED_PROGRAM WORK_FOLDER
set -euo pipefail
program=$1 work=$2
topic=column_sums
rm -rf "$work" && mkdir -p "$work"
run() {  # run NAME JOBS: the topic's cases; prints the exit status
  local status=0
  BANKCHECK_RESULTS_DIR="$work/$1" BANKCHECK_JOBS=$2 "$program" --bankcheck_topic=$topic >"$work/$1.log" 2>&1 ||
    status=$?
  echo "$status"
}
one=$(run one 1)
three=$(run three 3)
if [[ $one == 77 ]] && grep -q "cannot run" "$work/one.log"; then
  echo "skipped: the emulated program cannot read SASS here ($(grep -m1 -o 'cannot run [a-z]*' "$work/one.log"))"
  exit 77
fi
fail() { echo "FAILED: $*"; echo "--- BANKCHECK_JOBS=3 output:"; cat "$work/three.log"; exit 1; }
[[ $one == 0 && $three == 0 ]] || fail "exit status $one (one at a time), $three (three at once)"
cases=$(grep -c '^\[       OK \]' "$work/one.log")
((cases > 3)) || fail "only $cases cases passed one at a time"
grep -q "^bankcheck: running $cases cases in [0-9]* groups, 3 processes at a time" "$work/three.log" ||
  fail "no line saying the $cases cases ran 3 at a time"
[[ $(grep -c '^\[       OK \]' "$work/three.log") == "$cases" ]] || fail "not every case passed once"
# Each case's RUN line is followed by its own OK line: no other child's output between them.
awk '/^\[ RUN      \]/ { if (open != "") bad = 1; open = $4 }
     /^\[       OK \]/ { if ($4 != open) bad = 1; open = "" }
     END { exit bad }' "$work/three.log" || fail "a case's lines were split by another's"
python3 - "$work/one-emulated/cases" "$work/three-emulated/cases" <<'PY' || fail "the case records differ"
import json, os, sys
def load(folder):
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if "time" not in k and k not in ("date", "run")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x.replace("/one-emulated/", "/X/").replace("/three-emulated/", "/X/") if isinstance(x, str) else x
    return {f: strip(json.load(open(os.path.join(folder, f)))) for f in sorted(os.listdir(folder))}
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b or not a:
    sys.exit(f"{len(a)} and {len(b)} records; differing: {[f for f in a if a[f] != b.get(f)]}")
print(f"{len(a)} case records equal")
PY
echo "passed: $cases cases of $topic, 3 processes at a time, as one at a time"
