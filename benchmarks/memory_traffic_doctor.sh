#!/usr/bin/env bash
# memory_traffic_doctor.sh BUILD_DIR: on a GPU, the gate on global- and local-memory traffic,
# end to end through `bankcheck run` (docs/counters.md, "Global and local memory"):
#
#   1. bankcheck_memory_traffic_program (a coalesced copy, an 8x8 accumulator tile in registers)
#      recorded: `bankcheck run --attribute --baselines DIR --update-baselines` (exit 0);
#   2. the same program gated against them: exit 0;
#   3. bankcheck_memory_traffic_doctored (the copy's load at stride 2, the tile spilling under
#      __launch_bounds__(256, 8)) gated: exit 1, the copy failing at its load's line (ldg 1-way ->
#      2-way, sectors doubled) and the tile with local-memory traffic (STL/LDL) where it had none;
#   4. `bankcheck report --format github` of that run: an error annotation at the copy's line.
# Run from the repository root (the lines are named relative to it). Exit 0 when every step went as
# expected, 1 naming the step otherwise, 2 on a usage error. LOG_DIR (default: a new temporary
# folder) keeps each step's output.
set -uo pipefail

die() { echo "memory_traffic_doctor.sh: $*" >&2; exit 2; }
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$1
cli="$build/bin/bankcheck"
program="$build/benchmarks/bankcheck_memory_traffic_program"
doctored="$build/benchmarks/bankcheck_memory_traffic_doctored"
for f in "$cli" "$program" "$doctored"; do [[ -x "$f" ]] || die "$f not found: build first"; done
source=benchmarks/memory_traffic_program.cu
[[ -f "$source" ]] || die "run it from the repository root ($source not found)"
copy_line=$(grep -n 'out\[i\] = in\[kStride \* i\];' "$source" | cut -d: -f1)
[[ -n "$copy_line" ]] || die "the copy's line is not in $source"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/memory_traffic_doctor.XXXXXX)}"
mkdir -p "$log_dir"
baselines="$log_dir/baselines"
rm -rf "$baselines"
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
step() {  # step NAME EXPECTED-STATUS COMMAND...: runs it into LOG_DIR/NAME.log; checks its status
  local name=$1 want=$2 status=0
  shift 2
  "$@" >"$log_dir/$name.log" 2>&1 || status=$?
  echo "$name: exit $status (expected $want)"
  [[ $status -eq $want ]] || { sed 's/^/    /' "$log_dir/$name.log" | tail -40; fail "$name exited $status, not $want"; }
}

step record 0 "$cli" run --attribute --baselines "$baselines" --update-baselines -o "$log_dir/record.json" -- "$program"
step same 0 "$cli" run --attribute --baselines "$baselines" -o "$log_dir/same.json" -- "$program"
step doctored 1 "$cli" run --attribute --baselines "$baselines" -o "$log_dir/doctored.json" -- "$doctored"
grep -E "ldg: sectors|$source:$copy_line .*LDG" "$log_dir/doctored.log" | head -3
grep -Eq "launch 0 \(Copy.*ldg: sectors 2048 -> 4096" "$log_dir/doctored.log" ||
  fail "the doctored run does not fail with the copy's load sectors doubled"
grep -Eq "$source:$copy_line +\+0x[0-9a-f]+ +LDG[.A-Z0-9]* +512 exec +4,096 sectors +2,048 ideal" "$log_dir/doctored.log" ||
  fail "the doctored run does not name $source:$copy_line's load with its 4,096 sectors"
grep -E "(stl|ldl)[: ]" "$log_dir/doctored.log" | head -3
grep -Eq "OuterProductTile.*(a line that was not there before|stl|ldl)" "$log_dir/doctored.log" ||
  grep -Eq "stl .*-> |ldl .*-> " "$log_dir/doctored.log" || fail "the doctored run shows no new local-memory traffic"
step github 1 "$cli" report "$log_dir/doctored.json" --format github
grep -E "^::error file=$source,line=$copy_line," "$log_dir/github.log" | cut -c1-200 | head -2
grep -Eq "^::error file=$source,line=$copy_line," "$log_dir/github.log" ||
  fail "no GitHub error annotation at $source:$copy_line"
if ((failures == 0)); then
  echo "memory_traffic_doctor: passed: the doctored load and spill fail at their lines (run, GitHub format)"
else
  echo "memory_traffic_doctor: $failures check(s) failed; logs in $log_dir"
fi
((failures == 0))
