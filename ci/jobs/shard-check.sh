#!/usr/bin/env bash
# Checks that the kernel suite sharded with GoogleTest's protocol (GTEST_TOTAL_SHARDS and
# GTEST_SHARD_INDEX, as a CI matrix runs it: docs/ci.md, "Sharding") gives, once its shards'
# results are merged (`bankcheck merge-results`), the results of one unsharded run, case by case
# (the times aside), and the same verdict. Uses the build as it is (build it first).
#
#   ci/jobs/shard-check.sh [--doctor] LABEL N [N...]
#     LABEL      emulate: the emulated program (its results in <results>-emulated; needs nvdisasm
#                and cuobjdump on PATH); gpu: the GPU program. The suite's topic tests of that
#                CTest label (one per topic) run unsharded, then in N shards for each N.
#     --doctor   first run unsharded against the committed baselines, then change one passing
#                case's baseline in a copy (more wavefronts than measured), and run everything
#                against the copy: the unsharded and each merged verdict must fail, that case alone.
#
# BANKCHECK_BUILD_DIR (default build/) names the build; the work goes to a temporary folder
# (BANKCHECK_SHARD_CHECK_DIR keeps it there). Exit status: 0 every check held, 1 one did not, 2 usage.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

doctor=0
case "${1:-}" in
  -h | --help) bankcheck_help "$0"; exit 0 ;;
  --doctor) doctor=1; shift ;;
esac
usage_error() { echo "ci/jobs/shard-check.sh: $1 (see --help)" >&2; exit 2; }
(($# >= 2)) || usage_error "give a label (emulate or gpu) and at least one shard count"
label="$1"
shift
[[ "$label" == emulate || "$label" == gpu ]] || usage_error "the label is emulate or gpu, not '$label'"
for n in "$@"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage_error "a shard count is a whole number >= 1, not '$n'"
done
cli="$BUILD_DIR/bin/bankcheck"
suite_file="$BUILD_DIR/bankcheck-suites/bankcheck_kernel_suite.suite"
[[ -x "$cli" && -f "$suite_file" ]] || usage_error "no build in $BUILD_DIR (bin/bankcheck, the kernel suite): build it first"
prefix="$(sed -n 's/^test_prefix=//p' "$suite_file")"
# The topic tests alone, by name: "<prefix>/<topic>" (gpu), "<prefix>/emulated/<topic>" (emulate);
# other tests of the label that run the suite program (launch_paths_from_two_folders) are not a run.
program="$BUILD_DIR/suites/bankcheck_kernel_suite"
[[ "$label" == gpu ]] || program+="_emulated"
[[ -x "$program" ]] || usage_error "no $program: build it first"
regex_escape() { sed 's/[][\\.*^$()+?{}|]/\\&/g'; }
topics="$("$program" --bankcheck_list_topics | regex_escape | paste -sd'|')"
tests="^$(regex_escape <<<"$prefix")/$([[ "$label" == gpu ]] || echo 'emulated/')($topics)\$"
work="${BANKCHECK_SHARD_CHECK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-shard-check.XXXXXX")}"
mkdir -p "$work"
spec="$work/ctest-resources.json"
"$BANKCHECK_ROOT/framework/ci/bankcheck-ci.sh" --write-resource-spec "$spec"
unset BANKCHECK_CASES GTEST_FILTER GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX GTEST_SHARD_STATUS_FILE
export BANKCHECK_BASELINES_DIR="${BANKCHECK_BASELINES_DIR:-$BANKCHECK_ROOT/baselines}"
failures=0
fail() {
  echo "shard-check: FAILED: $*"
  failures=$((failures + 1))
}

# run_suite <name> [<shard index> <shards>]: the suite's topic tests of the label, into
# $work/<name>; sets `folder` to the folder its program wrote its fragments in. A test that fails
# is not an error here: the verdicts are compared.
run_suite() {
  local name="$1" results="$work/$1" log="$work/$1.log"
  rm -rf "$results" "$results-emulated"
  (
    export BANKCHECK_RESULTS_DIR="$results"
    if (($# == 3)); then
      export GTEST_SHARD_INDEX="$2" GTEST_TOTAL_SHARDS="$3" GTEST_SHARD_STATUS_FILE="$work/$1.status"
    fi
    ctest --test-dir "$BUILD_DIR" -L "^$label\$" -R "$tests" -j "$JOBS" --resource-spec-file "$spec" \
      --output-on-failure --no-tests=error >"$log" 2>&1 || true
  )
  if (($# == 3)) && [[ ! -f "$work/$1.status" ]]; then
    fail "$name: no test created GTEST_SHARD_STATUS_FILE (sharding not honoured)"
  fi
  folder="$results"
  [[ "$label" == gpu ]] || folder="$results-emulated"
}

# verdict <results file>: `bankcheck report`'s exit status and its totals line.
verdict() {
  local status=0 totals
  totals="$("$cli" report "$1" --format text 2>&1 | grep -m1 -oE '[0-9]+ cases?: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped')" || true
  "$cli" report "$1" --format text >/dev/null 2>&1 || status=$?
  echo "exit $status; $totals"
}

# compare <unsharded results> <merged results>: every case the same, the times aside, and the raw
# hardware readings of range-profiler launches ("hardware", "extra_metrics": they read a few percent
# high at scale, and differ from run to run; never compared with baselines) counted apart, and each
# run's own results folder (named in a failing case's record hint) read as one name.
compare() {
  python3 - "$1" "$2" "$work" <<'EOF'
import json, re, sys
full, merged = (json.load(open(path)) for path in sys.argv[1:3])
own_folder = re.compile(re.escape(sys.argv[3]) + r"/(unsharded|shards[0-9]+-[0-9]+)(-emulated)?\b")
def same_folder(value):
    if isinstance(value, str):
        return own_folder.sub("<results>", value)
    if isinstance(value, list):
        return [same_folder(v) for v in value]
    if isinstance(value, dict):
        return {k: same_folder(v) for k, v in value.items()}
    return value
full, merged = same_folder(full), same_folder(merged)
noisy = 0
for document in (full, merged):
    document["metadata"].pop("date", None)
for name in set(full["cases"]) & set(merged["cases"]):
    pairs = zip(full["cases"][name].get("launches", []), merged["cases"][name].get("launches", []))
    for a, b in pairs:
        for field in ("hardware", "extra_metrics"):
            noisy += a.get(field) != b.get(field)
            a.pop(field, None)
            b.pop(field, None)
if noisy:
    print(f"(hardware readings of {noisy} launch field(s) differ between the runs: not compared)")
problems = [f"metadata differs: {full['metadata']} vs {merged['metadata']}"] if full["metadata"] != merged["metadata"] else []
for name in sorted(set(full["cases"]) | set(merged["cases"])):
    a, b = full["cases"].get(name), merged["cases"].get(name)
    if a is None or b is None:
        problems.append(f"{name}: only in the {'merged' if a is None else 'unsharded'} results")
    elif a != b:
        fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        problems.append(f"{name}: differs ({a.get('status')} unsharded, {b.get('status')} merged) in {', '.join(fields)}")
        for k in fields:
            x, y = json.dumps(a.get(k)), json.dumps(b.get(k))
            at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            problems.append(f"  {k} from character {at}: {x[max(0, at - 200):at + 200]}\n  vs {y[max(0, at - 200):at + 200]}")
print("\n".join(problems) or f"{len(full['cases'])} cases equal")
sys.exit(1 if problems else 0)
EOF
}

# The one case whose baseline --doctor changes: the first that passed, compared with its baseline.
if ((doctor)); then
  echo "shard-check: the committed baselines, unsharded (to pick a passing case)"
  run_suite reference
  "$cli" merge-results "$folder" -o "$work/reference.json" >/dev/null
  python3 - "$work/reference.json" "$BANKCHECK_BASELINES_DIR" "$work/baselines" <<'EOF'
import glob, json, os, shutil, sys
results, baselines, copy = sys.argv[1:4]
cases = json.load(open(results))["cases"]
chosen = next((n for n, c in sorted(cases.items()) if c["status"] == "passed" and c.get("baseline") == "match"), None)
if chosen is None:
    sys.exit("shard-check: no case passed against its baseline: nothing to doctor")
shutil.rmtree(copy, ignore_errors=True)
shutil.copytree(baselines, copy)
for path in glob.glob(os.path.join(copy, "*", "*.json")):
    document = json.load(open(path))
    if chosen not in document.get("cases", {}):
        continue
    for launch in document["cases"][chosen]["launches"]:
        for kind in ("shared_ld", "shared_st"):
            if launch.get(kind, {}).get("wavefronts", 0) > 0:
                launch[kind]["wavefronts"] += 8
                launch[kind]["conflicts"] += 8
                for line in launch.get("lines", []):
                    if line["kind"] == kind:
                        line["wavefronts"] += 8
                        break
                break
        else:
            continue
        break
    json.dump(document, open(path, "w"), indent=2, sort_keys=True)
    print(f"shard-check: doctored the baseline of {chosen} in {path}")
    open(os.path.join(os.path.dirname(copy), "doctored-case"), "w").write(chosen)
    break
else:
    sys.exit(f"shard-check: no baseline file holds {chosen}")
EOF
  export BANKCHECK_BASELINES_DIR="$work/baselines"
fi

echo "shard-check: $label, unsharded"
run_suite unsharded
"$cli" merge-results "$folder" -o "$work/unsharded.json" >/dev/null
expected="$(verdict "$work/unsharded.json")"
echo "shard-check: unsharded: $expected"
if ((doctor)); then
  doctored="$(cat "$work/doctored-case")"
  failed="$(python3 -c 'import json,sys; print(" ".join(n for n, c in json.load(open(sys.argv[1]))["cases"].items() if c["status"] == "failed"))' "$work/unsharded.json")"
  [[ "$failed" == "$doctored" ]] || fail "doctored: the unsharded run failed '$failed', not '$doctored' alone"
  [[ "$expected" == "exit 1; "* ]] || fail "doctored: the unsharded verdict did not fail ($expected)"
fi

for n in "$@"; do
  folders=()
  for ((i = 0; i < n; i++)); do
    echo "shard-check: $label, shard $((i + 1)) of $n"
    run_suite "shards$n-$i" "$i" "$n"
    folders+=("$folder")
  done
  sources=()
  for folder in "${folders[@]}"; do
    # A shard whose every case skipped may still have written fragments; one with no case at all none.
    ! compgen -G "$folder/cases/*.json" >/dev/null || sources+=("$folder")
  done
  "$cli" merge-results "${sources[@]}" -o "$work/merged$n.json" || { fail "$n shards: merge-results failed"; continue; }
  got="$(verdict "$work/merged$n.json")"
  echo "shard-check: $n shards merged: $got"
  [[ "$got" == "$expected" ]] || fail "$n shards: the merged verdict ($got) is not the unsharded one ($expected)"
  compare "$work/unsharded.json" "$work/merged$n.json" || fail "$n shards: the merged results differ from the unsharded"
done

if ((failures)); then
  echo "shard-check: $failures check(s) failed (logs and results in $work)"
  exit 1
fi
echo "shard-check: passed: $label in $* shard(s) merged equals the unsharded run$( ((doctor)) && echo ", the doctored baseline failing exactly once")"
[[ -n "${BANKCHECK_SHARD_CHECK_DIR:-}" ]] || rm -rf "$work"
