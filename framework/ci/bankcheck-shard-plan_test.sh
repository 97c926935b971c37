#!/usr/bin/env bash
# bankcheck-shard-plan.py deals the cases by their recorded times (longest first, to the shard with
# the least so far), a new case at the median time, every case to one shard; names are escaped so
# that each selects its case alone (case_selection.h), one per line (BANKCHECK_CASES_FILE: no 4096-byte
# ceiling); a time that is not finite, negative or absurd is refused naming the file and case. CPU only.
set -euo pipefail
plan="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bankcheck-shard-plan.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../../ci/lib/expect.sh"

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
expect 0 $'t/five\nt/new\nt/three-b' shard 1
expect 0 $'t/\\[odd\\]\\*\nt/four\nt/three\\,a' shard 2
expect 2 "--shard takes 1 to --shards (2), not 3" shard 3
python3 "$plan" --cases "$tmp/cases" --junit "$tmp/junit" --shards 2 --shard 1 -o "$tmp/shard-1.txt"
expect 0 "" test "$(cat "$tmp/shard-1.txt")" = $'t/five\nt/new\nt/three-b'

# Times from a pull request's artifacts: `nan` compares false with everything and -1e308 makes one
# shard's total hopeless, each dealing every case to one shard. Refused, naming the file and the case.
for bad in nan -1e308 inf -0.5 1e7; do
  { echo "<testsuites>"; testcase t/four 4; testcase t/five "$bad"; echo "</testsuites>"; } >"$tmp/junit/bad.xml"
  expect 2 "$tmp/junit/bad.xml: the case 't/five' has time='$bad': a time must be a finite number of seconds" shard 1
done
rm "$tmp/junit/bad.xml"

# 210 cases of long names: one shard's selection is far more than a BANKCHECK_CASES value's 4096
# bytes, and each line is still one name.
for i in $(seq 1 210); do echo "a_rather_long_topic_name/with_a_long_case_name_number_$i"; done >"$tmp/many"
python3 "$plan" --cases "$tmp/many" --junit "$tmp/junit" --shards 2 --shard 1 -o "$tmp/many-1.txt"
expect 0 "" test "$(wc -c <"$tmp/many-1.txt")" -gt 4096
expect 0 "" test "$(wc -l <"$tmp/many-1.txt")" -eq 105

expect_done framework/ci/bankcheck-shard-plan_test.sh
