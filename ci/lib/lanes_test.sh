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

lane slow 1 0
lane fast 0.2 0
start=$SECONDS
status=0
output="$("$lanes" "$dir/slow" "$dir/fast" 2>&1)" || status=$?
((status == 0)) || failed "two passing lanes, exit $status"
((SECONDS - start < 2)) || failed "lanes of 1 s and 0.2 s took $((SECONDS - start)) s: not at the same time"
expected="
==== Lane $dir/fast: exit 0 after 0 s
fast begins
fast ends

==== Lane $dir/slow: exit 0 after 1 s
slow begins
slow ends"
[[ "$output" == "$expected" ]] || failed "expected (the faster lane first, each whole):
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
