#!/usr/bin/env bash
# run_capture_test.sh BANKCHECK CAPTURE_FIRST: the CTest test inject/capture_first (label gpu).
# `bankcheck run` on bankcheck_capture_first (capture_first_program.cu), whose first kernel launches
# are captured into a CUDA graph, in each capture mode; the injection must make no CUDA call during a
# capture (the program's capture would be invalidated) and count the graph's nodes when it runs:
#   global, thread-local, relaxed  the program exits 0 (its capture was undisturbed) and so does
#                the command; cases exactly Fill and Shift (the graph's two nodes, launch 0 of the
#                process: the captured launches are no launches of their own) and Fill#2 (launch 1);
#                Shift, the graph's second node, counted 4 shared load and 4 store wavefronts and no
#                conflict (a graph run without the profiler's instrumentation counts its first node only)
#   elsewhere    a launch that runs while another thread's capture is in progress: the program exits 0
#                with its results correct; the command exits 1, naming the launch and why it ran
#                unmeasured
# Needs python3 (to read the JSON). Exit status: 0 passed, 1 failed, 77 (CTest: skipped) when
# `bankcheck run` finds no usable GPU, the reason printed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 BANKCHECK CAPTURE_FIRST" >&2; exit 2; }
bankcheck=$1
program=$2
# shellcheck source=../testing/ctest_gpu.sh
source "$here/../testing/ctest_gpu.sh" || exit 1
command -v python3 >/dev/null || { echo "run_capture_test.sh: python3 is needed to read the results" >&2; exit 1; }

work=$(mktemp -d /tmp/bankcheck-capture-test.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAILED: $*" >&2
  failed=1
}

for mode in global thread-local relaxed; do
  echo "== $mode: bankcheck run -- $program $mode"
  "$bankcheck" run -o "$work/$mode.json" -- "$program" "$mode" >"$work/$mode.out" 2>"$work/$mode.err"
  status=$?
  cat "$work/$mode.out" "$work/$mode.err"
  if ((status == 77)); then
    printf '%s: Skipped\nno usable GPU (above)\n[  SKIPPED ] inject/capture_first (0 ms)\n' "$0"
    exit 77
  fi
  ((status == 0)) || { fail "$mode: exited $status"; continue; }
  grep -q "bankcheck_capture_first: $mode: every result correct" "$work/$mode.out" ||
    { fail "$mode: the program did not report its results correct"; continue; }
  python3 - "$work/$mode.json" <<'PY' || fail "$mode: the measured cases"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
if sorted(cases) != ["Fill", "Fill#2", "Shift"]:
    sys.exit(f"cases {sorted(cases)}, expected Fill, Fill#2, Shift")
for name, launch in (("Fill", 0), ("Shift", 0), ("Fill#2", 1)):
    if not cases[name]["description"].startswith(f"launch {launch} of the process"):
        sys.exit(f"{name}: {cases[name]['description']!r}, expected launch {launch} of the process")
shift = cases["Shift"]["launches"][0]
for kind in ("shared_ld", "shared_st"):
    if (shift[kind]["wavefronts"], shift[kind]["conflicts"]) != (4, 0):
        sys.exit(f"Shift {kind}: {shift[kind]}, expected 4 wavefronts and no conflict")
if cases["Fill"]["launches"][0]["shared_st"]["wavefronts"] != 0:
    sys.exit(f"Fill stores to shared memory: {cases['Fill']['launches'][0]['shared_st']}")
print("the graph's nodes Fill, Shift (4 + 4 wavefronts, no conflict) and Fill#2 measured")
PY
done

echo "== elsewhere: bankcheck run -- $program elsewhere"
"$bankcheck" run -o "$work/elsewhere.json" -- "$program" elsewhere >"$work/elsewhere.out" 2>"$work/elsewhere.err"
status=$?
cat "$work/elsewhere.out" "$work/elsewhere.err"
if ((status != 1)); then
  fail "elsewhere: exited $status, not 1 (the launch during the capture refused)"
elif ! grep -q "bankcheck_capture_first: elsewhere: every result correct" "$work/elsewhere.out"; then
  fail "elsewhere: the program did not report its results correct"
elif ! grep -Eq "Shift[^']*'\) ran unmeasured: it was launched while a stream capture was in progress" \
  "$work/elsewhere.err"; then
  fail "elsewhere: the refusal does not name the launch and the reason"
fi

((failed == 0)) && echo "== passed: every capture mode measured, the launch during a capture refused"
exit "$failed"
