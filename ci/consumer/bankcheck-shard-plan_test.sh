#!/usr/bin/env bash
# bankcheck-shard-plan.py deals the cases by their recorded times (longest first, to the shard with
# the least so far), a new case at the median time, every case to one shard; names are escaped so
# that each selects its case alone (case_selection.h). CPU only.
set -euo pipefail
plan="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-shard-plan.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../expect.sh"

mkdir -p "$tmp/junit/topic"
testcase() { echo "<testcase name=\"x\" time=\"$2\"><properties><property name=\"case\" value=\"$1\"/></properties></testcase>"; }
{
  echo "<testsuites><testsuite name=\"s\">"
  testcase t/five 5; testcase t/four 4; testcase 't/three,a' 3; testcase t/three-b 3
  echo "</testsuite></testsuites>"
} >"$tmp/junit/topic/t.xml"
echo "<testsuites><testsuite" >"$tmp/junit/cut-short.xml"  # a killed process's: ignored
printf '%s\n' t/five t/four 't/three,a' t/three-b t/new 't/[odd]*' >"$tmp/cases"
shard() { python3 "$plan" --cases "$tmp/cases" --junit "$tmp/junit" --shards 2 --shard "$1"; }
# Longest first (ties by name): five (5) -> 1; four (4) -> 2; [odd]* and new, new cases at the
# median 3.5: -> 2 (4 < 5), then -> 1 (5 < 7.5); three,a (3) -> 2 (7.5 < 8.5); three-b -> 1.
expect 0 't/five,t/new,t/three-b' shard 1
expect 0 't/\[odd\]\*,t/four,t/three\,a' shard 2
expect 2 "--shard takes 1 to --shards (2), not 3" shard 3

expect_done ci/consumer/bankcheck-shard-plan_test.sh
