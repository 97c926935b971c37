#!/usr/bin/env bash
# run_overhead.sh BUILD_DIR: what `bankcheck run` costs per kernel launch of an unmodified program,
# against the program alone and against Nsight Compute reading the same counters.
#
# The program is bankcheck_launch_loop N (BUILD_DIR/benchmarks/): N launches at each of three strides,
# 3N in all, each output checked on the host. For each N of COUNTS (default "10 50": 30 and 150
# launches) it times whole processes, the median of REPEATS (default 3) runs each, in this order:
#   plain      bankcheck_launch_loop N
#   bankcheck  bankcheck run -o LOG_DIR/run.json -- bankcheck_launch_loop N     (every launch counted)
#   ncu        ncu --metrics <the SASS counters bankcheck reads> bankcheck_launch_loop N
# The metrics are the instrumented (sm__sass_/smsp__sass_) metrics of every kind in the kind table
# (`bankcheck_speed_probe --print-kinds`, columns 3-5): what bankcheck's default counting reads, without
# the hardware pairs that only the range profiler and ncu_crosscheck.sh need. Each run is checked:
# the program's exit status, bankcheck's results holding 3N cases, ncu having profiled 3N kernels.
# One untimed run of each goes first, so that the machine's first-use costs (up to 0.5 s for the first
# CUPTI process after a while) fall on none of them.
#
# Prints the wall times, and per launch: (t(N2) - t(N1)) / (3 N2 - 3 N1) for the first and last N, the
# same less the plain program's (the tool's own cost of a launch), and ncu / bankcheck of both. No
# limit is asserted: exit 0 when every run succeeded, 1 when one failed (its log's end is printed),
# 2 on a usage error or a missing tool.
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder), COUNTS, REPEATS.
set -euo pipefail

die() { echo "run_overhead.sh: $*" >&2; exit 2; }
fail() { echo "run_overhead.sh: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
loop="$1/benchmarks/bankcheck_launch_loop"
probe="$1/benchmarks/bankcheck_speed_probe"
cli="$1/bin/bankcheck"
for f in "$loop" "$probe" "$cli"; do [[ -x "$f" ]] || die "$f not found: build first"; done

source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/run_overhead.XXXXXX)}"
mkdir -p "$log_dir"
read -r -a counts <<<"${COUNTS:-10 50}"
repeats="${REPEATS:-3}"
[[ ${#counts[@]} -ge 2 ]] || die "COUNTS needs two launch counts or more, smallest first"
for n in "${counts[@]}" "$repeats"; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "COUNTS and REPEATS must be positive integers"; done
((counts[0] < counts[${#counts[@]} - 1])) || die "COUNTS must end with a larger count than it starts with"

"$probe" --print-kinds >"$log_dir/kinds.tsv" || die "$probe --print-kinds failed"
metrics=$(awk -F'\t' '{for (i = 3; i <= 5; i++) if ($i != "-") print $i}' "$log_dir/kinds.tsv" | sort -u | paste -sd, -)
[[ -n "$metrics" ]] || die "no metrics in $log_dir/kinds.tsv"
echo "metrics: $metrics"
echo "logs:    $log_dir"
echo "ncu:     $ncu"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed NAME COMMAND...: runs it with stdout and stderr in LOG_DIR/NAME.log; prints the wall ms.
# `bankcheck run` exits 77 without a usable GPU (and says why): nothing can be timed then.
timed() {
  local name=$1 start end status=0
  shift
  start=$(now_ms)
  "$@" >"$log_dir/$name.log" 2>&1 || status=$?
  end=$(now_ms)
  if ((status != 0)); then
    echo "run_overhead.sh: '$*' exited with $status; its output ($log_dir/$name.log) ends:" >&2
    tail -n 20 "$log_dir/$name.log" >&2
    ((status == 77)) && exit 2
    exit 1
  fi
  echo $((end - start))
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# check_bankcheck RESULTS LAUNCHES: the results file has one case per launch (each case's
# description starts with "launch <N>"; the file is written one key per line).
check_bankcheck() {
  local cases
  cases=$(grep -c '"description": "launch [0-9]' "$1" || true)
  [[ "$cases" -eq "$2" ]] || fail "bankcheck recorded $cases launches of $2 (see $1)"
}
check_ncu() {
  local profiled
  if grep -q '==ERROR==' "$1"; then
    grep '==ERROR==' "$1" | head -n 5 >&2
    fail "ncu reported errors (see $1)"
  fi
  profiled=$(grep -c '==PROF== Profiling' "$1" || true)
  [[ "$profiled" -eq "$2" ]] || fail "ncu profiled $profiled kernels of $2 launches (see $1)"
}

timed warmup_plain "$loop" "${counts[0]}" >/dev/null
timed warmup_bankcheck "$cli" run -o "$log_dir/warmup.json" -- "$loop" "${counts[0]}" >/dev/null
timed warmup_ncu "$ncu" --metrics "$metrics" "$loop" "${counts[0]}" >/dev/null

tools=(plain bankcheck ncu)
declare -A wall times
for n in "${counts[@]}"; do
  launches=$((3 * n))
  times=()
  for ((rep = 1; rep <= repeats; rep++)); do
    tag="n${n}_$rep"
    times[plain]+=" $(timed "plain_$tag" "$loop" "$n")"
    times[bankcheck]+=" $(timed "bankcheck_$tag" "$cli" run -o "$log_dir/run_$tag.json" -- "$loop" "$n")"
    check_bankcheck "$log_dir/run_$tag.json" "$launches"
    times[ncu]+=" $(timed "ncu_$tag" "$ncu" --metrics "$metrics" "$loop" "$n")"
    check_ncu "$log_dir/ncu_$tag.log" "$launches"
  done
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086  # a list of numbers
    wall[$tool,$n]=$(median ${times[$tool]})
  done
done

for n in "${counts[@]}"; do
  for tool in "${tools[@]}"; do echo "$tool $((3 * n)) ${wall[$tool,$n]}"; done
done | awk -v reps="$repeats" '
  { t[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; launches[++nc] = $2 } }
  END {
    split("plain bankcheck ncu", tools, " ")
    label["plain"] = "bankcheck_launch_loop alone"
    label["bankcheck"] = "bankcheck run -- bankcheck_launch_loop"
    label["ncu"] = "ncu --metrics <SASS counters>"
    printf "\nwhole process, median of %d runs (s):\n%-40s", reps, "launches"
    for (i = 1; i <= nc; i++) printf "%10d", launches[i]
    printf "%16s %16s\n", "ms per launch", "beyond plain"
    a = launches[1]; b = launches[nc]
    for (k = 1; k <= 3; k++) {
      tool = tools[k]
      printf "%-40s", label[tool]
      for (i = 1; i <= nc; i++) printf "%10.2f", t[tool, launches[i]] / 1000
      per[tool] = (t[tool, b] - t[tool, a]) / (b - a)
      printf "%16.3f", per[tool]
      if (tool == "plain") printf "%17s\n", "-"
      else printf "%16.3f\n", per[tool] - per["plain"]
    }
    printf "\nper launch, from %d to %d launches: ncu / bankcheck %.1fx", a, b,
           (per["bankcheck"] > 0 ? per["ncu"] / per["bankcheck"] : 0)
    extra_b = per["bankcheck"] - per["plain"]
    if (extra_b > 0) printf "; beyond the plain program %.1fx\n", (per["ncu"] - per["plain"]) / extra_b
    else printf "; beyond the plain program: bankcheck adds nothing measurable\n"
    for (i = 1; i <= nc; i++)
      printf "whole process at %d launches: ncu / bankcheck %.1fx\n", launches[i],
             t["ncu", launches[i]] / t["bankcheck", launches[i]]
  }'
