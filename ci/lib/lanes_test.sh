#!/usr/bin/env bash
# ci/lib/lanes.sh: the lanes run at the same time, each one's output printed whole under its heading
# as it ends, and the run fails with the first failed lane's status once every lane has ended.
set -euo pipefail
lanes="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lanes.sh"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-lanes-test.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
failures=0
failed() {
  echo "FAILED: $1" >&2
  failures=$((failures + 1))
}
# lane <name> <seconds> <exit status>: a lane that prints two lines around a sleep, then exits.
lane() {
  printf '#!/usr/bin/env bash\necho "%s begins"\nsleep %s\necho "%s ends"\nexit %s\n' "$1" "$2" "$1" "$3" >"$dir/$1"
  chmod +x "$dir/$1"
}
# meeting <name> <other>: a lane that says it has begun, then waits (10 s at most) for the other
# lane to have begun too: both pass only if they run at the same time.
meeting() {
  printf '#!/usr/bin/env bash\ntouch "%s/%s.began"\nfor _ in $(seq 100); do [[ -e "%s/%s.began" ]] && { echo "%s met %s"; exit 0; }; sleep 0.1; done\necho "%s waited alone"; exit 1\n' \
    "$dir" "$1" "$dir" "$2" "$1" "$2" "$1" >"$dir/$1"
  chmod +x "$dir/$1"
}
# The headings' seconds vary with the machine's load: read as N.
headings() { sed 's/^\(==== Lane .*: exit [0-9]*\) after [0-9]* s$/\1 after N s/' <<<"$1"; }

meeting left right
meeting right left
status=0
output="$("$lanes" "$dir/left" "$dir/right" 2>&1)" || status=$?
((status == 0)) || failed "two lanes that wait for each other: exit $status (not at the same time?): $output"

lane slow 1 0
lane fast 0.1 0
status=0
output="$("$lanes" "$dir/slow" "$dir/fast" 2>&1)" || status=$?
((status == 0)) || failed "two passing lanes, exit $status"
expected="
==== Lane $dir/fast: exit 0 after N s
fast begins
fast ends

==== Lane $dir/slow: exit 0 after N s
slow begins
slow ends"
[[ "$(headings "$output")" == "$expected" ]] || failed "expected (the faster lane first, each whole; N: seconds):
$expected
got:
$output"

lane broken 0.1 3
lane other 0.5 4
status=0
output="$("$lanes" "$dir/slow" "$dir/broken" "$dir/other" 2>&1)" || status=$?
((status == 3)) || failed "the first lane to fail exited 3, lanes.sh $status"
grep -q '^slow ends$' <<<"$output" || failed "a lane was not waited for after another failed: $output"
grep -q '^==== Lane .*/other: exit 4 ' <<<"$output" || failed "the second failure is not shown: $output"

status=0
output="$("$lanes" "$dir/missing" 2>&1)" || status=$?
((status == 2)) || failed "a lane that is not a script: exit $status, not 2"
[[ "$output" == *"is not an executable script"* ]] || failed "no reason for a missing lane: $output"
status=0
"$lanes" >/dev/null 2>&1 || status=$?
((status == 2)) || failed "no lane: exit $status, not 2"

((failures == 0)) || exit 1
echo "ci/lib/lanes.sh: lanes at the same time, logs whole, the first failure's status"
