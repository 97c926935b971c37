#!/usr/bin/env bash
# bankcheck-merge.sh, the last job of a sharded run (docs/ci.md): two shards' bankcheck-ci artifact
# folders merge into one results file per suite, one report, one SARIF file per suite; the merged
# verdict decides the exit status; shards of two commits, and a case in two shards, do not merge.
# CPU only: the results are written here.  Usage: bankcheck-merge_test.sh <bankcheck command>
set -euo pipefail
cli="${1:?give the bankcheck command}"
merge="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-merge.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../expect.sh"

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

expect_done ci/consumer/bankcheck-merge_test.sh
