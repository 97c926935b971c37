#!/usr/bin/env bash
# line_checks_cost.sh BUILD_DIR [CASES]: what per-line checking costs the kernel suite (issue 34's
# target: line checks within 1.25x of the same suite without them).
#
# Runs BUILD_DIR/suites/bankcheck_kernel_suite over the cases (CASES: BANKCHECK_CASES's patterns,
# default all), one process each run, in three modes, alternating, REPEATS times (default 5) after
# one untimed run of each:
#   off  BANKCHECK_LINES=off: launches counted, no tables, no line checked
#   on   the default: the tables of every case whose lines are its contract, its lines checked
#   all  BANKCHECK_ATTRIBUTE=1: every case's tables (what every case with per-line baselines needs)
# with the disassembly cache (docs/attribution.md) in a scratch folder, filled by the untimed runs:
# the cost of a run after the first one of a build. Then one run of `on` and of `all` each with an
# empty cache (the first run after a build: one nvdisasm per module, begun as the modules load with
# the context, on background threads: PrefetchProjectDisassembly), the `all` one with
# BANKCHECK_TRACE_SESSION=1, whose trace is summed: nvdisasm runs and their time, how long cases
# waited for listings, cache reads, listing parses; and one of `on` with an empty cache and
# CUDA_MODULE_LOADING=LAZY (each module loads, and begins its disassembly, when a case first uses it). Prints each run's wall time, the medians, and on/off and all/off. Pass or fail
# does not matter here (a case without a baseline fails the same way in every mode). Exit 0 when it
# measured, 2 on a usage error. Environment: REPEATS, LOG_DIR (default $OUT/line-checks-cost when
# OUT is set, else a new temporary folder).
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [CASES]" >&2; exit 2; }
suite="$1/suites/bankcheck_kernel_suite"
export BANKCHECK_CASES=${2:-*}
repeats=${REPEATS:-5}
[[ -x "$suite" ]] || { echo "line_checks_cost.sh: $suite not found: build first" >&2; exit 2; }
[[ "$repeats" =~ ^[1-9][0-9]?$ ]] || { echo "line_checks_cost.sh: REPEATS must be 1 to 99" >&2; exit 2; }
if [[ -n "${LOG_DIR:-}" ]]; then log_dir=$LOG_DIR
elif [[ -n "${OUT:-}" ]]; then log_dir=$OUT/line-checks-cost
else log_dir=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-line-cost.XXXXXX"); fi
mkdir -p "$log_dir"
log_dir=$(cd "$log_dir" && pwd)
# Results files and caches (megabytes a run) in a scratch folder, removed at the end; logs in LOG_DIR.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-line-cost-scratch.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
unset BANKCHECK_LINES BANKCHECK_ATTRIBUTE BANKCHECK_TRACE_SESSION

# run MODE NAME CACHE [VAR=value...]: one timed run of the suite; prints its seconds.
run() {
  local mode=$1 name=$2 cache=$3 start end
  shift 3
  local -a env=(BANKCHECK_RESULTS_DIR="$scratch/results-$name" BANKCHECK_DISASSEMBLY_CACHE="$cache")
  case $mode in
    off) env+=(BANKCHECK_LINES=off) ;;
    all) env+=(BANKCHECK_ATTRIBUTE=1) ;;
  esac
  start=$(date +%s.%N)
  env "${env[@]}" "$@" "$suite" >"$log_dir/$name.log" 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cache="$scratch/cache"
modes=(off on all)
for mode in "${modes[@]}"; do run "$mode" "$mode-warmup" "$cache" >/dev/null; done
declare -A times
for ((i = 1; i <= repeats; ++i)); do
  line="run $i:"
  for mode in "${modes[@]}"; do
    t=$(run "$mode" "$mode-$i" "$cache")
    times[$mode]+="$t "
    line+=" $mode $t s"
  done
  echo "$line"
done
cold_on=$(run on cold-on "$scratch/cold-cache-on")
cold_all=$(run all cold-all "$scratch/cold-cache-all" BANKCHECK_TRACE_SESSION=1)
cold_lazy=$(run on cold-lazy "$scratch/cold-cache-lazy" CUDA_MODULE_LOADING=LAZY)
echo "empty cache: on $cold_on s, all $cold_all s (traced), on with lazy loading $cold_lazy s"

# shellcheck disable=SC2086 # each mode's times, one word each
{
  med_off=$(printf '%s\n' ${times[off]} | median)
  med_on=$(printf '%s\n' ${times[on]} | median)
  med_all=$(printf '%s\n' ${times[all]} | median)
}
cases=$(grep -Eo '^\[==========\] [0-9]+ tests' "$log_dir/all-1.log" | grep -Eo '[0-9]+' || echo '?')
# The trace of the cold `all` run: where attribution's own time went.
awk '
  /bankcheck trace: nvdisasm -gi on cubin/ { n++; t += $(NF - 1) }
  /bankcheck trace: nvdisasm listing of cubin .* from the cache/ { c++; ct += $(NF - 1) }
  /bankcheck trace: listing of cubin .* parsed/ { p++; pt += $(NF - 1) }
  /bankcheck trace: prefetched listing of cubin .* waited for/ { w++; wt += $(NF - 1) }
  END { printf "cold all, traced: %d nvdisasm runs, %.2f s in all (on any thread); %d prefetched listings, waited for %.2f s; %d listings from the cache, %.3f s; %d parsed, %.3f s\n", n, t / 1000, w, wt / 1000, c, ct / 1000, p, pt / 1000 }
' "$log_dir/cold-all.log"
awk -v c="$cases" -v r="$repeats" -v off="$med_off" -v on="$med_on" -v all="$med_all" -v con="$cold_on" -v call="$cold_all" \
  -v clazy="$cold_lazy" 'BEGIN {
  printf "kernel suite, %s cases, median of %s (disassembly cache filled):\n", c, r
  printf "  without line checks (BANKCHECK_LINES=off)   %7.2f s\n", off
  printf "  default (cases whose lines are the contract) %7.2f s  %.3fx\n", on, on / off
  printf "  every case attributed (BANKCHECK_ATTRIBUTE=1) %6.2f s  %.3fx\n", all, all / off
  printf "  empty cache, one run: default %.2f s (%.3fx), every case %.2f s (%.3fx)\n", con, con / off, call, call / off
  printf "  empty cache, CUDA_MODULE_LOADING=LAZY: default %.2f s (%.3fx)\n", clazy, clazy / off }'
echo "logs: $log_dir"
