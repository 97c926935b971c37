#!/usr/bin/env bash
# memory_traffic_cost.sh BUILD_DIR [REPEATS]: what counting global and local memory adds to the
# measured suite (issue 43's target: within 1.2x of counting shared memory alone). Runs the whole
# kernel suite program REPEATS times (default 3) each way, alternating: with the default counters,
# and with BANKCHECK_SASS_CONFIG=metrics=shared (the shared-memory kinds alone, as before). Prints
# each run's wall time, then the medians and their ratio:
#   "memory_traffic_cost: default median N ms, shared-only median M ms, ratio R".
# Exit 0 when every run passed, 1 otherwise, 2 on a usage error. Needs a GPU.
set -uo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [REPEATS]" >&2; exit 2; }
suite="$1/suites/bankcheck_kernel_suite"
repeats=${2:-3}
[[ -x "$suite" ]] || { echo "memory_traffic_cost.sh: $suite not found: build first" >&2; exit 2; }
[[ "$repeats" =~ ^[1-9][0-9]?$ ]] || { echo "memory_traffic_cost.sh: REPEATS is 1 to 99" >&2; exit 2; }
work=$(mktemp -d /tmp/memory_traffic_cost.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
declare -A times
for ((r = 1; r <= repeats; ++r)); do
  for way in default shared-only; do
    config=()
    [[ $way == shared-only ]] && config=(BANKCHECK_SASS_CONFIG=metrics=shared)
    start=$(date +%s%N)
    env "${config[@]}" BANKCHECK_RESULTS_DIR="$work/$way" "$suite" >"$work/$way.log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "run $r $way: exit $rc, $ms ms"
    ((rc == 0)) || { status=1; tail -20 "$work/$way.log"; }
    times[$way]+="$ms "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
default=$(median "${times[default]}")
shared=$(median "${times[shared-only]}")
echo "memory_traffic_cost: default median $default ms, shared-only median $shared ms, ratio $(awk -v a="$default" -v b="$shared" 'BEGIN {printf "%.2f", a / b}')"
exit "$status"
