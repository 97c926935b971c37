#!/usr/bin/env bash
# output_pass_speed.sh OLD_BUILD NEW_BUILD: the output pass's speed in two builds, measured in one run
# (docs/emulate.md, "Computed outputs"). Runs OLD_BUILD/benchmarks/output_pass_benchmark and
# NEW_BUILD's alternately, ROUNDS (default 3) times each, and prints every run's
# warp_instructions_per_second by kernel, the median of each build's runs, and new / old of the
# medians. Each build's benchmark checks the stores it computes against the host's. Exit 0 when every
# run succeeded, 1 when one failed (its output is printed), 2 on a usage error.
# Environment: ROUNDS, MIN_TIME (seconds per benchmark and run, default 1).
set -euo pipefail

die() { echo "output_pass_speed.sh: $*" >&2; exit 2; }
[[ $# -eq 2 ]] || { echo "usage: $0 OLD_BUILD NEW_BUILD" >&2; exit 2; }
old="$1/benchmarks/output_pass_benchmark"
new="$2/benchmarks/output_pass_benchmark"
for program in "$old" "$new"; do [[ -x "$program" ]] || die "$program not found: build the output_pass_benchmark target"; done
rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
min_time="${MIN_TIME:-1}"
[[ "$min_time" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "MIN_TIME must be a number of seconds"

# run PROGRAM: prints "kernel rate" lines (warp instructions per second, CPU time) of one run.
run() {
  local output
  if ! output="$("$1" --benchmark_min_time="$min_time" --benchmark_format=csv 2>&1)"; then
    echo "output_pass_speed.sh: $1 failed:" >&2
    echo "$output" >&2
    exit 1
  fi
  if grep -q '^"BM_[^,]*",.*,true,' <<<"$output"; then
    echo "output_pass_speed.sh: $1 reported an error:" >&2
    echo "$output" >&2
    exit 1
  fi
  # CSV header: name,iterations,real_time,cpu_time,time_unit,...,warp_instructions,warp_instructions_per_second
  awk -F, '
    /^name,/ { gsub(/"/, ""); for (i = 1; i <= NF; ++i) if ($i == "warp_instructions_per_second") column = i; next }
    column && /^"BM_/ { gsub(/"/, "", $1); sub(/^BM_/, "", $1); printf "%s %.0f\n", $1, $column }' <<<"$output"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A rates
kernels=()
for ((round = 1; round <= rounds; round++)); do
  for build in old new; do
    program="$old"
    [[ $build == new ]] && program="$new"
    lines="$(run "$program")"  # not in a pipeline: a failed run ends the script
    while read -r kernel rate; do
      [[ -n "${rates[old,$kernel]+x}${rates[new,$kernel]+x}" ]] || kernels+=("$kernel")
      rates[$build,$kernel]="${rates[$build,$kernel]:-} $rate"
      printf 'round %d %-3s %-8s %12s warp instructions/s\n' "$round" "$build" "$kernel" "$rate"
    done <<<"$lines"
  done
done
echo
printf '%-8s %14s %14s %7s\n' kernel "old (median)" "new (median)" "new/old"
for kernel in "${kernels[@]}"; do
  o=$(tr ' ' '\n' <<<"${rates[old,$kernel]}" | grep . | median)
  n=$(tr ' ' '\n' <<<"${rates[new,$kernel]}" | grep . | median)
  printf '%-8s %14s %14s %7s\n' "$kernel" "$o" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2fx", n / o }')"
done
