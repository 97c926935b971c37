#!/usr/bin/env bash
# ci/lib/stage-times.sh, sourced as .ci/run sources it: each line after it is a stage, listed once with
# its seconds, then the total; a failing stage is marked and the script keeps its exit status.
set -euo pipefail
ci="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-stage-times.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
failures=0
failed() {
  echo "FAILED: $1" >&2
  failures=$((failures + 1))
}

cat >"$dir/run" <<EOF
#!/usr/bin/env bash
set -euo pipefail
source "$ci/stage-times.sh"
sleep 0.3
echo "a stage's own output"
bash -c 'exit \${FAIL:-0}'
sleep 0.2
EOF

# seconds <output> <name>: the seconds, in tenths, that the table gives the stage (or "total").
seconds() { sed -n "s/^ *\([0-9]*\)\.\([0-9]\)  $2\$/\1\2/p" <<<"$1" | sed 's/^0*\(.\)/\1/'; }

status=0
output="$(bash "$dir/run" 2>&1)" || status=$?
# The seconds vary with the machine's load: the table read with each number as N.
expected="a stage's own output

== Seconds per stage
N  sleep 0.3
N  echo \"a stage's own output\"
N  bash -c 'exit \${FAIL:-0}'
N  sleep 0.2
N  total"
((status == 0)) || failed "the stages passed, yet the script exited $status"
[[ "$(sed 's/^ *[0-9]*\.[0-9]  /N  /' <<<"$output")" == "$expected" ]] ||
  failed "expected, after the stages' output (N: seconds, to a tenth):
$expected
got:
$output"
(($(seconds "$output" 'sleep 0\.3') >= 3 && $(seconds "$output" total) >= 5)) ||
  failed "a stage of 0.3 s or a total of 0.5 s counted less: $output"

status=0
output="$(FAIL=3 bash "$dir/run" 2>&1)" || status=$?
((status == 3)) || failed "the third stage exited 3, the script $status"
[[ "$(sed 's/^ *[0-9]*\.[0-9]  /N  /' <<<"$output" | tail -n 2)" == "N  bash -c 'exit \${FAIL:-0}'  FAILED (exit 3)
N  total" ]] || failed "expected the failed stage marked, the last listed, then the total: $output"

((failures == 0)) || exit 1
echo "ci/lib/stage-times_test.sh: all passed"
