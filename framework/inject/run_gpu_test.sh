#!/usr/bin/env bash
# run_gpu_test.sh BANKCHECK NVTX_FIRST [LAUNCH_LOOP]: the CTest test inject/bankcheck_run (label
# gpu). `bankcheck run` on programs of this repository and on a PyTorch script, each recorded with
# --update-baselines, then gated against what it recorded (exit 0), then against a doctored
# baseline (exit 1, the case a regression); and every launch must be named by the NVTX range it ran
# in:
#   NVTX_FIRST   bankcheck_nvtx_first (nvtx_first_program.cu): its first range opens before CUDA
#                initializes; cases exactly inputs/Fill, inputs/Fill#2, work/Shift, work/Shift#2,
#                Fill, Fill#2; and with --measure-once, without work/Shift#2 (a repeat of work/Shift:
#                same arguments), the Fills all measured (their value argument differs)
#   LAUNCH_LOOP  bankcheck_launch_loop 2 (benchmarks/, when built): stride{1,2,32}/StridedCopy{,#2}
#   examples/python/nvtx_before_init.py, with a python3 that has torch with CUDA (else this part
#                is skipped, the reason printed): every case inside "inputs" or "work" (doctored only
#                when one of its cases moves shared memory)
# Needs python3 (to read the JSON). Exit status: 0 passed, 1 failed, 77 (CTest: skipped) when
# `bankcheck run` finds no usable GPU, the reason printed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $0 BANKCHECK NVTX_FIRST [LAUNCH_LOOP]" >&2; exit 2; }
bankcheck=$1
nvtx_first=$2
launch_loop=${3:-}
# shellcheck source=../testing/ctest_gpu.sh
source "$here/../testing/ctest_gpu.sh" || exit 1
command -v python3 >/dev/null || { echo "run_gpu_test.sh: python3 is needed to read the results" >&2; exit 1; }

work=$(mktemp -d /tmp/bankcheck-run-gpu-test.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAILED: $*" >&2
  failed=1
}

# check_names RESULTS MODE ARGS...: "exact NAME..." the case names are exactly these; "ranges
# RANGE..." every case is inside one of these ranges, and each range has a case.
check_names() {
  python3 - "$@" <<'PY'
import json, sys
results, mode, expected = sys.argv[1], sys.argv[2], sys.argv[3:]
names = sorted(json.load(open(results))["cases"])
if mode == "exact":
    ok = names == sorted(expected)
else:
    ok = names and all(n.split("/")[0] in expected for n in names) and \
        all(any(n.split("/")[0] == r for n in names) for r in expected)
if not ok:
    sys.exit(f"cases {names}, expected {mode} {expected}")
print(f"named by their ranges: {names}")
PY
}

# worsen BASELINES RESULTS: one wavefront fewer in the recorded baseline of the first case that
# moves shared memory, so that its measurement is a regression; prints the case's name. Exit status 3
# when no case moves shared memory.
worsen() {
  python3 - "$@" <<'PY'
import json, pathlib, sys
results = json.load(open(sys.argv[2]))
folder = pathlib.Path(sys.argv[1]) / results["metadata"]["arch"]
for path in sorted(folder.glob("*.json")):
    recorded = json.loads(path.read_text())
    for name, case in sorted(recorded["cases"].items()):
        for launch in case["launches"]:
            for key, block in sorted(launch.items()):
                if key.startswith("shared_") and isinstance(block, dict) and block.get("wavefronts", 0) > 0:
                    block["wavefronts"] -= 1
                    if block["conflicts"] > 0:
                        block["conflicts"] -= 1
                    else:
                        block["ideal"] -= 1
                    path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
                    print(name)
                    sys.exit(0)
print("no recorded case moves shared memory", file=sys.stderr)
sys.exit(3)
PY
}

# gate LABEL MODE NAMES -- COMMAND...: records, checks names, passes, fails on a doctored baseline.
gate() {
  local label=$1 mode=$2
  shift 2
  local names=()
  while [[ $1 != -- ]]; do names+=("$1"); shift; done
  shift
  local dir="$work/$label" status
  mkdir -p "$dir"
  echo "== $label: bankcheck run --update-baselines -- $*"
  "$bankcheck" run --baselines "$dir/baselines" --update-baselines -o "$dir/record.json" -- "$@"
  status=$?
  if ((status == 77)); then
    printf '%s: Skipped\nno usable GPU (above)\n[  SKIPPED ] inject/bankcheck_run (0 ms)\n' "$0"
    exit 77
  fi
  ((status == 0)) || { fail "$label: recording exited $status"; return; }
  check_names "$dir/record.json" "$mode" "${names[@]}" || { fail "$label: case names"; return; }
  "$bankcheck" run --baselines "$dir/baselines" -o "$dir/gate.json" -- "$@"
  status=$?
  ((status == 0)) || { fail "$label: the gate against what was just recorded exited $status"; return; }
  local case
  case=$(worsen "$dir/baselines" "$dir/record.json")
  status=$?
  if ((status == 3)) && [[ $mode == ranges ]]; then
    echo "== $label: passed (recorded and gated; no case moves shared memory, so none was doctored)"
    return
  fi
  ((status == 0)) || { fail "$label: nothing to doctor"; return; }
  "$bankcheck" run --baselines "$dir/baselines" -o "$dir/doctored.json" -- "$@"
  status=$?
  ((status == 1)) || { fail "$label: the gate against a doctored baseline of $case exited $status, not 1"; return; }
  python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["cases"][sys.argv[2]]["baseline"]; sys.exit(0 if v == "regression" else f"{sys.argv[2]}: {v}")' \
    "$dir/doctored.json" "$case" || { fail "$label: $case is not a regression"; return; }
  echo "== $label: passed (recorded, gated, and $case failed against its doctored baseline)"
}

gate nvtx_first exact inputs/Fill 'inputs/Fill#2' work/Shift 'work/Shift#2' Fill 'Fill#2' -- "$nvtx_first"
# --measure-once: the two Shift launches (same arguments, same range) are one case and a repeat; the
# Fill launches differ in their value argument, so each is measured.
echo "== measure_once: bankcheck run --measure-once -- $nvtx_first"
"$bankcheck" run --measure-once -o "$work/once.json" -- "$nvtx_first" 2>"$work/once.err"
status=$?
cat "$work/once.err" >&2
if ((status != 0)); then
  fail "measure_once: exited $status"
elif ! check_names "$work/once.json" exact inputs/Fill 'inputs/Fill#2' work/Shift Fill 'Fill#2'; then
  fail "measure_once: case names"
elif ! grep -q '1 later launch(es) ran unmeasured as repeats of 1 case(s)' "$work/once.err" ||
  ! python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["cases"]["work/Shift"]["description"]; sys.exit(0 if "measured once for it and 1 later launch" in d else d)' \
    "$work/once.json"; then
  fail "measure_once: the repeat of work/Shift is not reported"
else
  echo "== measure_once: passed (work/Shift measured once for 2 launches; each Fill measured)"
fi
if [[ -n "$launch_loop" ]]; then
  gate launch_loop exact stride1/StridedCopy 'stride1/StridedCopy#2' stride2/StridedCopy \
    'stride2/StridedCopy#2' stride32/StridedCopy 'stride32/StridedCopy#2' -- "$launch_loop" 2
else
  echo "== launch_loop: not built (BANKCHECK_BUILD_BENCHMARKS=OFF); not run"
fi
python=${BANKCHECK_PYTHON:-python3}
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  gate torch ranges inputs work -- "$python" "$here/../../examples/python/nvtx_before_init.py"
else
  echo "== torch: skipped: no $python with torch and a GPU it can use (set BANKCHECK_PYTHON)"
fi
exit "$failed"
