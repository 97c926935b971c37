#!/usr/bin/env bash
# ci/lib/emulate-results.py on made-up results folders (the values are inputs, not measurements): the
# summary counts decided, equal, differing and undecided cases and groups reasons; the crosscheck
# finds a doctored instruction row, a missing per-instruction table and a different kernel, compares
# global rows only where both sides counted them, and takes a kernel in an anonymous namespace
# compiled twice for the same kernel.
set -euo pipefail
script="$(dirname "${BASH_SOURCE[0]}")/emulate-results.py"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-emulate-results.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
failures=0
failed() {
  echo "FAILED: $1" >&2
  failures=$((failures + 1))
}

python3 - "$dir" <<'PY'
import copy, json, os, sys
root = sys.argv[1]
def launch(counters, wavefronts=64, rows=True):
    return {"kernel": "k()", "mangled": "_Z1kv", "counters": counters,
            "shared_st": {"instructions": 32, "wavefronts": wavefronts, "ideal": 32, "conflicts": wavefronts - 32},
            "instructions": [{"pc": 64, "executions": 32, "wavefronts": wavefronts, "ideal": 32}] if rows else []}
def case(status, launches, baseline=None, messages=(), output=None):
    c = {"status": status, "launches": launches, "messages": list(messages)}
    if baseline: c["baseline"] = baseline
    if output: c["output"] = output
    return c
emulated = {
    "t/a": case("passed", [launch("emulated")], "match", output="passed"),
    "t/b": case("passed", [launch("emulated")], "match",
                output="not computed: a launch's outputs were not computed: a value the emulator does not compute (FMUL at pc 0x0120, /src/k.cu:36) feeds the value stored of STG.E at pc 0x0140, /src/k.cu:36 [k()]"),
    "t/c": case("failed", [launch("emulated", 96)], "regression", output="failed"),
    "t/d": case("skipped", [], messages=["not decided: a load from global memory (LDG.E at pc 0x0090) feeds an address (k.cu:12) [STS at pc 0x1a0 of k()]"],
                output="not computed: the case was not decided"),
    "t/e": case("skipped", [], messages=["not decided: a load from global memory (LDG.E at pc 0x00f0) feeds an address (k.cu:30) [LDS at pc 0x200 of k()]"],
                output="not computed: the case was not decided"),
    "t/f": case("skipped", [], messages=["not emulated: cudaGraphLaunch"],
                output="no output checks: the case reads no device memory back after its launches"),
    # Decided, with no baseline to compare with: counted apart, not as undecided.
    "t/h": case("skipped", [launch("emulated")], "missing", messages=["MISSING: case \"t/h\" has no baseline"],
                output="passed"),
    # A reason that names its source line after a comma: grouped without it.
    "t/g": case("skipped", [], messages=["not decided: the access of LDS.64 at pc 0x0230, /src/k.cu:38: a phase of a 8-byte load (lanes 0-15) has lanes off [LDS.64 at pc 0x230 of k()]"],
                output="not computed: the case was not decided"),
}
measured = {name: case("passed", [launch("sass metrics")], "match") for name in emulated}
measured["t/b"]["launches"][0]["instructions"][0]["wavefronts"] = 65  # the doctored row
# An anonymous namespace's name differs between two compilations of one file: the same kernel.
def anonymous(number):
    ns = "_GLOBAL__N__a9bc5c1c_10_strided_cu_41a3b291_" + number
    return f"_ZN9bankcheck{len(ns)}{ns}1kEv"
emulated["t/a"]["launches"][0]["mangled"] = anonymous("994316")
measured["t/a"]["launches"][0]["mangled"] = anonymous("1547916")
measured["t/c"]["launches"][0] = launch("sass metrics", 96)
# Global memory: compared row by row and in total where both sides counted it (t/b's row differs),
# skipped where the emulated launch did not count it (t/c).
def global_load(record, sectors):
    record["global_ld"] = {"instructions": 32, "wavefronts": sectors, "ideal": 128, "conflicts": sectors - 128}
    record["instructions"].append({"pc": 96, "kind": "global_ld", "executions": 32, "wavefronts": sectors, "ideal": 128})
global_load(measured["t/b"]["launches"][0], 256)
global_load(emulated["t/b"]["launches"][0], 1024)
global_load(measured["t/c"]["launches"][0], 256)
emulated["t/c"]["launches"][0]["not_counted"] = ["global_ld", "global_st", "global_atom", "global_red"]
# An LDGSTS's two rows at one pc (its shared writes, its global reads), listed in either order:
# compared kind by kind (t/a stays equal).
ldgsts = [{"pc": 128, "kind": "shared_ldgsts", "executions": 4, "wavefronts": 16, "ideal": 16},
          {"pc": 128, "kind": "global_ldgsts", "executions": 4, "wavefronts": 64, "ideal": 64}]
measured["t/a"]["launches"][0]["instructions"] += ldgsts
emulated["t/a"]["launches"][0]["instructions"] += ldgsts[::-1]
for folder, cases in (("emulated", emulated), ("measured", measured)):
    os.makedirs(f"{root}/{folder}/cases")
    for name, c in cases.items():
        with open(f"{root}/{folder}/cases/{name.replace('/', '_')}.json", "w") as f:
            json.dump({"format": "bankcheck-results", "version": 1, "cases": {name: c}}, f)
PY

status=0
out="$(python3 "$script" summary "$dir/emulated")" || status=$?
((status == 1)) || failed "summary: a differing case must exit 1, got $status"
[[ "$out" == *"decided 3 of 8 cases, equal to the baselines 2, differ 1; decided without a baseline 1 (not compared: record them on a GPU); undecided 4 by reason: 2 not decided: a load from global memory (LDG.E at pc 0x…) feeds an address; 1 not emulated: cudaGraphLaunch; 1 not decided: the access of LDS.64 at pc 0x…: a phase of a 8-byte load (lanes 0-15) has lanes off"* ]] ||
  failed "summary: $out"
[[ "$out" == *"DIFFERS t/c: baseline regression"* ]] || failed "summary names the differing case: $out"
[[ "$out" == *"output checks: ran emulated and passed 2 of 8 cases, failed 1; not computed 4 by reason: 3 the case was not decided; 1 a launch's outputs were not computed: a value the emulator does not compute (FMUL at pc 0x…) feeds the value stored of STG.E at pc 0x…; no output checks 1"* ]] ||
  failed "summary counts the output checks: $out"

status=0
out="$(python3 "$script" crosscheck "$dir/measured" "$dir/emulated")" || status=$?
((status == 1)) || failed "crosscheck: a doctored row must exit 1, got $status"
[[ "$out" == *"decided 4, equal 3, differ 1; undecided 4 by reason"* ]] || failed "crosscheck: $out"
[[ "$out" == *"DIFFERS t/b:"*"pc 0x40: measured (executions, wavefronts, ideal) (32, 65, 32), emulated (32, 64, 32)"* ]] ||
  failed "crosscheck names the instruction: $out"
[[ "$out" == *"pc 0x60: measured (executions, wavefronts, ideal) (32, 256, 128), emulated (32, 1024, 128)"* ]] ||
  failed "crosscheck compares global rows both sides counted: $out"
[[ "$out" != *"DIFFERS t/c"* ]] || failed "crosscheck skips kinds the emulated launch did not count: $out"

# A results file (ci/jobs/emulate.sh merges each folder with bankcheck merge-results first, whose rule
# leaves out fragments of earlier runs): the same summary as of the folder's fragments.
python3 - "$dir" <<'PY'
import glob, json, sys
cases = {}
for path in sorted(glob.glob(f"{sys.argv[1]}/emulated/cases/*.json")):
    cases.update(json.load(open(path))["cases"])
json.dump({"format": "bankcheck-results", "version": 1, "cases": cases}, open(f"{sys.argv[1]}/merged.json", "w"))
PY
status=0
merged="$(python3 "$script" summary "$dir/merged.json")" || status=$?
folder="$(python3 "$script" summary "$dir/emulated")" || true
((status == 1)) && [[ "$merged" == "$folder" ]] || failed "summary of a results file ($status): $merged"

status=0
python3 "$script" summary "$dir/nothing" >/dev/null 2>&1 || status=$?
((status == 2)) || failed "a folder without results must exit 2, got $status"

((failures == 0)) || exit 1
echo "ci/lib/emulate-results.py: all checks passed"
