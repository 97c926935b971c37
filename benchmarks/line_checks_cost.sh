#!/usr/bin/env bash
# line_checks_cost.sh BUILD_DIR [CASES]: what per-line checking costs the kernel suite (issue
# 25's target: the suite with line checks on every case whose lines are its contract within 1.25x
# of the same suite without them).
#
# Runs BUILD_DIR/suites/bankcheck_kernel_suite over the cases (CASES: BANKCHECK_CASES's patterns,
# default all) REPEATS times (default 5) with BANKCHECK_LINES=off (launches counted, no tables, no
# line checked) and with
# the default (the tables of every case without c.expect or with annotations in its own file read
# with its counts, its lines checked), alternating, one untimed
# run of each first; prints each run's wall time, the medians and their ratio. Pass or fail does not
# matter here (a case without a baseline fails the same way in both). Exit 0 when it measured, 2
# on a usage error. Environment: REPEATS, LOG_DIR (default: a new temporary folder).
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [CASES]" >&2; exit 2; }
suite="$1/suites/bankcheck_kernel_suite"
export BANKCHECK_CASES=${2:-*}
repeats=${REPEATS:-5}
[[ -x "$suite" ]] || { echo "line_checks_cost.sh: $suite not found: build first" >&2; exit 2; }
[[ "$repeats" =~ ^[1-9][0-9]?$ ]] || { echo "line_checks_cost.sh: REPEATS must be 1 to 99" >&2; exit 2; }
log_dir=${LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-line-cost.XXXXXX")}
mkdir -p "$log_dir"

# run MODE I: one timed run of the suite; prints its seconds.
run() {
  local mode=$1 i=$2 start end
  start=$(date +%s.%N)
  BANKCHECK_LINES=$mode BANKCHECK_RESULTS_DIR="$log_dir/results-$mode-$i" \
    "$suite" >"$log_dir/$mode-$i.log" 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run off warmup >/dev/null
run on warmup >/dev/null
off_times=() on_times=()
for ((i = 1; i <= repeats; ++i)); do
  off_times+=("$(run off "$i")")
  on_times+=("$(run on "$i")")
  echo "run $i: without line checks ${off_times[-1]} s, with ${on_times[-1]} s"
done
off=$(printf '%s\n' "${off_times[@]}" | median)
on=$(printf '%s\n' "${on_times[@]}" | median)
cases=$(grep -Eo '^\[==========\] [0-9]+ tests' "$log_dir/on-1.log" | grep -Eo '[0-9]+' || echo '?')
awk -v c="$cases" -v r="$repeats" -v off="$off" -v on="$on" 'BEGIN {
  printf "kernel suite, %s cases, median of %s: without line checks %.2f s, with %.2f s: %.3fx\n", c, r, off, on, on / off }'
echo "logs: $log_dir"
