#!/usr/bin/env bash
# bankcheck-merge.sh, the last job of a sharded run (docs/ci.md): two shards' bankcheck-ci artifact
# folders merge into one results file per suite, one report, one SARIF file per suite; the merged
# verdict decides the exit status; shards of two commits, and a case in two shards, do not merge; a
# shard missing, or one that did not report a case of its plan, fails the merge; a baselines patch
# that touches anything but baseline files is refused.
# CPU only: the results are written here.  Usage: bankcheck-merge_test.sh <bankcheck command>
set -euo pipefail
cli="${1:?give the bankcheck command}"
merge="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-merge.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../../ci/lib/expect.sh"

# shard <folder> <commit> <case> <status>: a shard's artifacts: results/s.json with the one case,
# its JUnit XML and ctest.log, and its SARIF file (one finding) in sarif/<folder>/s.sarif.
shard() {
  mkdir -p "$tmp/$1/results" "$tmp/$1/junit" "$tmp/sarif/$1"
  cat >"$tmp/$1/results/s.json" <<EOF
{"format": "bankcheck-results", "version": 1,
 "metadata": {"arch": "sm_90", "device": "NVIDIA H200", "driver": "580.65.06", "cuda_runtime": "13.0",
              "cuda_driver": "13.0", "date": "2026-11-28T10:00:0${1: -1}Z", "git_commit": "$2"},
 "cases": {"$3": {"description": "", "status": "$4", "expected": {}, "expected_by": "case", "launches": [],
                  "baseline": "not_compared", "baseline_table": "", "messages": []}}}
EOF
  echo "<testsuites/>" >"$tmp/$1/junit/$1.xml"
  echo "ctest of $1" >"$tmp/$1/ctest.log"
  cat >"$tmp/sarif/$1/s.sarif" <<EOF
{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "bankcheck", "rules": [{"id": "r0"}]}},
 "automationDetails": {"id": "bankcheck/s/"}, "results": [{"ruleId": "r0", "message": {"text": "$3"}}]}]}
EOF
}
run_merge() {
  rm -rf "$tmp/out" "$tmp/out-sarif"
  "$merge" --bankcheck "$cli" --artifacts "$tmp/out" --summary "$tmp/summary.md" --sarif-from "$tmp/sarif" \
    --sarif "$tmp/out-sarif" "$@"
}
count() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d.get("cases") or d["runs"][0]["results"]))' "$1"; }

shard shard-1 abc123 t/a passed
shard shard-2 abc123 t/b passed
expect 0 "suite s, 2 shard(s) merged" run_merge "$tmp/shard-1" "$tmp/shard-2"
expect 0 "" test "$(count "$tmp/out/results/s.json")" = 2
expect 0 "" test "$(count "$tmp/out-sarif/s.sarif")" = 2
expect 0 "" test -f "$tmp/out/junit/shard-2/shard-2.xml" -a -f "$tmp/out/ctest-shard-1.log"
expect 0 "bankcheck-merge: passed." cat "$tmp/summary.md"

shard shard-2 abc123 t/b failed
expect 1 "bankcheck report fails some case of s" run_merge "$tmp/shard-1" "$tmp/shard-2"
expect 0 "bankcheck-merge: failed." cat "$tmp/out/report.md"

shard shard-2 def456 t/b passed
expect 1 "git_commit \"def456\"" run_merge "$tmp/shard-1" "$tmp/shard-2"
expect 1 "" test -e "$tmp/out/results/s.json"

shard shard-2 abc123 t/a passed
expect 1 "case \"t/a\" is in both $tmp/shard-1/results/s.json and $tmp/shard-2/results/s.json" \
  run_merge "$tmp/shard-1" "$tmp/shard-2"
expect 2 "no folder" run_merge "$tmp/missing"

# The shards' plans (bankcheck-ci --shard writes plan/shard and plan/<suite>.txt).
shard shard-1 abc123 t/a passed
shard shard-2 abc123 t/b passed
for n in 1 2; do
  mkdir -p "$tmp/shard-$n/plan"
  echo "$n/2" >"$tmp/shard-$n/plan/shard"
  echo baselines >"$tmp/shard-$n/plan/baselines"
done
echo t/a >"$tmp/shard-1/plan/s.txt"
echo t/b >"$tmp/shard-2/plan/s.txt"
expect 0 "suite s, 2 shard(s) merged" run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
expect 0 "bankcheck-merge: passed." cat "$tmp/out/report.md"
# One shard's folder empty (its job died before it wrote anything): "passed" before; now it fails.
mkdir -p "$tmp/empty"
expect 1 "shard 2 of 2: no artifact folder holds it" run_merge --shards 2 "$tmp/shard-1" "$tmp/empty"
expect 1 "empty holds no plan/shard: that shard's bankcheck-ci did not finish" \
  run_merge --shards 2 "$tmp/shard-1" "$tmp/empty"
expect 0 "bankcheck-merge: failed." cat "$tmp/summary.md"
expect 1 "shard 2 of 2: no artifact folder holds it" run_merge --shards 2 "$tmp/shard-1"
# A shard that reported fewer cases than it planned (a crash, a timeout).
printf 't/b\nt/c\n' >"$tmp/shard-2/plan/s.txt"
expect 1 "shard 2 ($tmp/shard-2) reported 1 of the 2 cases of s it planned; missing: t/c" \
  run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
echo t/b >"$tmp/shard-2/plan/s.txt"
rm "$tmp/shard-2/results/s.json"
expect 1 "reported 0 of the 1 cases of s it planned; missing: t/b" run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
shard shard-2 abc123 t/b passed
echo "1/2" >"$tmp/shard-2/plan/shard"
expect 1 "are both shard 1" run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
echo "2/3" >"$tmp/shard-2/plan/shard"
expect 1 "is shard 2 of 3, but the run has 2 shards (--shards)" run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
echo "2/2" >"$tmp/shard-2/plan/shard"
expect 2 "--shards takes a whole number" run_merge --shards x "$tmp/shard-1"

# Baselines patches: as bankcheck-ci writes them (git diff --no-index of a copy), one per shard.
# make_patch <name> <command run in the copy b/>: the patch of what the command changed.
make_patch() {
  rm -rf "$tmp/p"
  mkdir -p "$tmp/p/a/baselines/sm_90" "$tmp/p/a/.github/workflows"
  echo '{"t/a": 1}' >"$tmp/p/a/baselines/sm_90/t.json"
  echo '{"u/a": 1}' >"$tmp/p/a/baselines/sm_90/u.json"
  echo 'on: push' >"$tmp/p/a/.github/workflows/gpu.yml"
  cp -R "$tmp/p/a" "$tmp/p/b"
  (cd "$tmp/p/b" && eval "$2")
  (cd "$tmp/p" && git -c core.quotepath=off diff --no-index --no-color --no-ext-diff --binary \
    --src-prefix= --dst-prefix= a b) >"$tmp/$1.patch" || true
}
patch_merge() {  # patch_merge <patch>: shard-2 offers it
  cp "$tmp/$1.patch" "$tmp/shard-2/baselines.patch"
  run_merge --shards 2 "$tmp/shard-1" "$tmp/shard-2"
}
make_patch good 'echo "{\"t/a\": 2}" >baselines/sm_90/t.json; echo "{}" >baselines/sm_90/v.json; rm baselines/sm_90/u.json'
expect 0 "suite s, 2 shard(s) merged" patch_merge good
expect 0 "bankcheck-merge: passed." cat "$tmp/out/report.md"
expect 0 "" cmp "$tmp/good.patch" "$tmp/out/baselines-shard-2.patch"
(cd "$tmp/p/a" && git apply --check -p1 "$tmp/out/baselines-shard-2.patch") || { echo "FAILED: the kept patch does not apply" >&2; exit 1; }
make_patch workflow 'echo "on: pull_request_target" >.github/workflows/gpu.yml'
(cd "$tmp/p/a" && git apply --check -p1 "$tmp/workflow.patch")  # git would apply it
expect 1 "the baselines.patch of shard-2 is refused, not kept: it touches .github/workflows/gpu.yml, which is no baseline file" \
  patch_merge workflow
expect 1 "" test -e "$tmp/out/baselines-shard-2.patch"
make_patch both 'echo "{}" >baselines/sm_90/t.json; echo "x: 1" >>.github/workflows/gpu.yml'
expect 1 "it touches .github/workflows/gpu.yml" patch_merge both
make_patch elsewhere 'mkdir -p other/sm_90 && echo "{}" >other/sm_90/t.json'
expect 1 "it touches other/sm_90/t.json, outside the baselines folder(s) baselines" patch_merge elsewhere
make_patch notjson 'echo x >baselines/sm_90/t.sh'
expect 1 "it touches baselines/sm_90/t.sh, which is no baseline file" patch_merge notjson
make_patch mode 'chmod +x baselines/sm_90/t.json'
expect 1 "a mode, link, binary, rename or copy" patch_merge mode
make_patch link 'ln -s /etc/passwd baselines/sm_90/p.json'
expect 1 "a mode, link, binary, rename or copy" patch_merge link
make_patch binary 'printf "\x00\x01" >baselines/sm_90/t.json'
expect 1 "line 3 is no change of a regular file's text (a mode, link, binary, rename or copy): 'GIT binary patch'" patch_merge binary
# Written by hand: a rename, a '..' path, text outside the grammar (GNU patch reads 'Index:' lines),
# a hunk that holds more than it says.
sed 's|^diff --git a/baselines/sm_90/t.json b/baselines/sm_90/t.json|diff --git a/baselines/sm_90/t.json b/baselines/sm_90/w.json|' \
  "$tmp/good.patch" >"$tmp/rename.patch"
expect 1 "renames or copies baselines/sm_90/t.json to baselines/sm_90/w.json" patch_merge rename
sed 's|baselines/sm_90/t.json|baselines/../.github/sm_90/t.json|g' "$tmp/good.patch" >"$tmp/dotdot.patch"
expect 1 "which is no baseline file" patch_merge dotdot
{ cat "$tmp/good.patch"; printf 'Index: .github/workflows/gpu.yml\n'; } >"$tmp/index.patch"
expect 1 "is outside a git diff's grammar: 'Index: .github/workflows/gpu.yml'" patch_merge index
sed '0,/^+{"t\/a": 2}$/s//+{"t\/a": 2}\n+--- a\/x/' "$tmp/good.patch" >"$tmp/long.patch"
expect 1 "is outside a git diff's grammar: '+--- a/x'" patch_merge long
# The shards must name one baselines folder alike.
make_patch good 'echo "{\"t/a\": 2}" >baselines/sm_90/t.json'
echo other >"$tmp/shard-1/plan/baselines"
expect 1 "outside the baselines folder(s) different in $tmp/shard-1 and $tmp/shard-2" patch_merge good

expect_done framework/ci/bankcheck-merge_test.sh
