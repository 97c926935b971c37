#!/usr/bin/env bash
# ncu_speed.sh BUILD_DIR: bankcheck's in-process counter session against Nsight Compute on the same
# launches (the goal: >= 10x faster than ncu, < 2 ms overhead per launch).
#
# Runs bankcheck_speed_probe (BUILD_DIR/benchmarks/) four times, on a machine with a GPU:
#   1. --mode=kernels-only      the launches' own GPU time, no profiler (kernel_ms)
#   2. --mode=bankcheck         whole-process wall time, and the measuring part (session_ms)
#   3. ncu --metrics <CoreMetrics()> --mode=plain   whole-process wall time
#   4. --mode=bankcheck --sessions=3   session times after the first (CUPTI already set up), for information
#   5. the same launches, one session per launch, as the suites measure (whole process, then warm)
#   6. the same launches with user replay (whole process, then warm)
# and prints the wall times, ncu / bankcheck, and bankcheck's overhead per launch:
#   (session_ms - passes * kernel_ms) / launches, passes = 2 for the core metrics.
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder).
set -euo pipefail

die() { echo "ncu_speed.sh: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
probe="$1/benchmarks/bankcheck_speed_probe"
[[ -x "$probe" ]] || die "$probe not found; build the bankcheck_speed_probe target first"

ncu="${NCU:-$(command -v ncu || true)}"
if [[ -z "$ncu" ]]; then
  for candidate in /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    if [[ -x "$candidate" ]]; then ncu=$candidate; break; fi
  done
fi
[[ -n "$ncu" && -x "$ncu" ]] || die "Nsight Compute (ncu) not found: put it on PATH or set NCU=/path/to/ncu"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/ncu_speed.XXXXXX)}"
mkdir -p "$log_dir"
passes=2  # the core metrics mix instrumented and hardware counters: two replay passes

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# value KEY FILE: the value of a key=value line.
value() {
  local v
  v=$(sed -n "s/^$1=//p" "$2" | head -n 1)
  [[ -n "$v" ]] || die "no '$1=' line in $2:"$'\n'"$(cat "$2")"
  echo "$v"
}
# run NAME COMMAND...: runs it with stdout and stderr in LOG_DIR/NAME.log; prints the wall ms.
run() {
  local name=$1 start end
  shift
  start=$(now_ms)
  if ! "$@" >"$log_dir/$name.log" 2>&1; then
    echo "ncu_speed.sh: '$*' failed; its output ($log_dir/$name.log) ends:" >&2
    tail -n 20 "$log_dir/$name.log" >&2
    exit 1
  fi
  end=$(now_ms)
  echo $((end - start))
}

metrics=$("$probe" --print-metrics)
echo "metrics: $metrics"
echo "logs:    $log_dir"

run kernels "$probe" --mode=kernels-only >/dev/null
kernel_ms=$(value kernel_ms "$log_dir/kernels.log")

bankcheck_wall_ms=$(run bankcheck "$probe" --mode=bankcheck)
session_ms=$(value session_ms "$log_dir/bankcheck.log")
launches=$(value launches "$log_dir/bankcheck.log")

ncu_wall_ms=$(run ncu "$ncu" --metrics "$metrics" "$probe" --mode=plain)
if grep -q '==ERROR==' "$log_dir/ncu.log"; then
  grep '==ERROR==' "$log_dir/ncu.log" | head -n 5 >&2
  die "ncu reported errors (see $log_dir/ncu.log)"
fi
ncu_launches=$(value launches "$log_dir/ncu.log")
[[ "$ncu_launches" == "$launches" ]] || die "ncu's run made $ncu_launches launches, bankcheck's $launches"
# Each profiled kernel gets one "==PROF== Profiling" line.
profiled=$(grep -c '==PROF== Profiling' "$log_dir/ncu.log" || true)
[[ "$profiled" -eq "$launches" ]] || echo "warning: ncu reports $profiled profiled kernels for $launches launches" >&2

run warm "$probe" --mode=bankcheck --sessions=3 >/dev/null
warm_ms=$(value session3_ms "$log_dir/warm.log")

# As the suites measure: one session per case, here one per launch.
single_wall_ms=$(run single "$probe" --mode=bankcheck --launches-per-session=1)
single_ms=$(value session_ms "$log_dir/single.log")
run single_warm "$probe" --mode=bankcheck --launches-per-session=1 --sessions=2 >/dev/null
single_warm_ms=$(value session2_ms "$log_dir/single_warm.log")

# SessionOptions::Replay::kUser: the launches run once per pass, no memory save/restore.
user_wall_ms=$(run user "$probe" --mode=bankcheck --replay=user)
run user_warm "$probe" --mode=bankcheck --replay=user --sessions=2 >/dev/null
user_warm_ms=$(value session2_ms "$log_dir/user_warm.log")

awk -v bw="$bankcheck_wall_ms" -v nw="$ncu_wall_ms" -v s="$session_ms" -v w="$warm_ms" -v k="$kernel_ms" \
    -v p="$passes" -v n="$launches" -v sbw="$single_wall_ms" -v ss="$single_ms" -v sw="$single_warm_ms" \
    -v ubw="$user_wall_ms" -v uw="$user_warm_ms" '
  function verdict(ok) { return ok ? "PASS" : "FAIL" }
  BEGIN {
    ratio = nw / bw
    cold = (s - p * k) / n
    warm = (w - p * k) / n
    printf "\n"
    printf "%-50s %10.2f s\n", "bankcheck, whole process", bw / 1000
    printf "%-50s %10.2f s\n", "ncu --metrics <core metrics>, whole process", nw / 1000
    printf "%-50s %10.1f x    target >= 10x: %s\n", "ncu / bankcheck", ratio, verdict(ratio >= 10)
    printf "%-50s %10.1f ms\n", "bankcheck session, " n " launches (session to Finish)", s
    printf "%-50s %10.3f ms\n", "the same launches without a profiler (kernels)", k
    printf "%-50s %10.3f ms   target < 2 ms: %s\n", "overhead per launch: (session - " p " x kernels) / " n,
           cold, verdict(cold < 2)
    printf "%-50s %10.3f ms\n", "  the same for a later session (" w " ms)", warm
    printf "\none session per launch, as the suites measure:\n"
    printf "%-50s %10.2f s\n", "bankcheck, whole process, " n " sessions", sbw / 1000
    printf "%-50s %10.1f x    target >= 10x: %s\n", "ncu / bankcheck", nw / sbw, verdict(nw / sbw >= 10)
    printf "%-50s %10.3f ms   target < 2 ms: %s\n", "overhead per launch (the first sessions pay setup)",
           (ss - p * k) / n, verdict((ss - p * k) / n < 2)
    printf "%-50s %10.3f ms   target < 2 ms: %s\n", "overhead per launch, once set up", (sw - p * k) / n,
           verdict((sw - p * k) / n < 2)
    printf "\nuser replay (Replay::kUser: launches re-run per pass), one session of %d:\n", n
    printf "%-50s %10.2f s\n", "bankcheck, whole process", ubw / 1000
    printf "%-50s %10.1f x    target >= 10x: %s\n", "ncu / bankcheck", nw / ubw, verdict(nw / ubw >= 10)
    printf "%-50s %10.3f ms   target < 2 ms: %s\n", "overhead per launch, once set up", (uw - p * k) / n,
           verdict((uw - p * k) / n < 2)
  }'
