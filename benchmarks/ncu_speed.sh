#!/usr/bin/env bash
# ncu_speed.sh BUILD_DIR: bankcheck's in-process counting against Nsight Compute on the same
# launches (the goals, issue 13: >= 15x faster than ncu at 42 launches in one process, < 2 ms
# overhead per launch beyond the kernels' own runs, both in the default mode).
#
# bankcheck_speed_probe (BUILD_DIR/benchmarks/) makes rounds of 7 suite-kernel launches (strided
# demo at stride 1, 2, 32; 1024x1024 transposes, unpadded and padded; the puzzle pair). For each
# launch count (ROUNDS, default "6 20": 42 and 140 launches) it times whole processes, the median
# of REPEATS (default 3) runs each, in this order within a repetition:
#   ncu        ncu --metrics <CoreMetrics()> probe --mode=plain     (the launches, nothing else)
#   sass       probe --mode=bankcheck                  the default (SASS metrics), one session of all
#              launches
#   per-launch probe --mode=bankcheck --launches-per-session=1   the default, one session per launch
#              (how the suites measure: one case per session)
#   kernel     probe --mode=bankcheck --counters=range-profiler  a range-profiler session with
#              kernel replay, one session of all launches
#   user       probe --mode=bankcheck --replay=user    a range-profiler session with Replay::kUser
# and prints the wall times, ncu / bankcheck, and what each costs per launch beyond its fixed cost
# (the slope between the two launch counts). Overhead per launch: a second session in the same
# process (CUPTI already set up), minus the launches' own GPU time once per pass (1 for SASS
# metrics, 2 for a range-profiler session: the probe prints it), over the launches. Before timing,
# one untimed run of each tool takes the machine's first-use costs (up to 0.5 s for the first CUPTI
# process after a while), which would otherwise fall on whichever runs first.
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder), ROUNDS, REPEATS.
set -euo pipefail

die() { echo "ncu_speed.sh: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
probe="$1/benchmarks/bankcheck_speed_probe"
[[ -x "$probe" ]] || die "$probe not found; build the bankcheck_speed_probe target first"

source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/ncu_speed.XXXXXX)}"
mkdir -p "$log_dir"
read -r -a round_counts <<<"${ROUNDS:-6 20}"
repeats="${REPEATS:-3}"
[[ ${#round_counts[@]} -ge 1 && "$repeats" -ge 1 ]] || die "ROUNDS needs a count and REPEATS must be >= 1"

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
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

metrics=$("$probe" --print-metrics)
echo "metrics: $metrics"
echo "logs:    $log_dir"
echo "ncu:     $ncu"

declare -A mode_args=(
  [sass]="--mode=bankcheck"
  [per-launch]="--mode=bankcheck --launches-per-session=1"
  [kernel]="--mode=bankcheck --counters=range-profiler"
  [user]="--mode=bankcheck --replay=user"
)
modes=(sass per-launch kernel user)

run warmup_bankcheck "$probe" --mode=bankcheck --rounds=1 >/dev/null
run warmup_ncu "$ncu" --metrics "$metrics" "$probe" --mode=plain --rounds=1 >/dev/null

declare -A wall launches_of times
for rounds in "${round_counts[@]}"; do
  times=()  # per tool or mode: its wall ms at this count, space-separated
  for ((rep = 1; rep <= repeats; rep++)); do
    tag="r${rounds}_${rep}"
    times[ncu]+=" $(run "ncu_$tag" "$ncu" --metrics "$metrics" "$probe" --mode=plain --rounds="$rounds")"
    if grep -q '==ERROR==' "$log_dir/ncu_$tag.log"; then
      grep '==ERROR==' "$log_dir/ncu_$tag.log" | head -n 5 >&2
      die "ncu reported errors (see $log_dir/ncu_$tag.log)"
    fi
    n=$(value launches "$log_dir/ncu_$tag.log")
    profiled=$(grep -c '==PROF== Profiling' "$log_dir/ncu_$tag.log" || true)
    [[ "$profiled" -eq "$n" ]] || die "ncu profiled $profiled kernels of $n launches (see $log_dir/ncu_$tag.log)"
    for mode in "${modes[@]}"; do
      # shellcheck disable=SC2086  # the mode's arguments are words
      times[$mode]+=" $(run "${mode}_$tag" "$probe" ${mode_args[$mode]} --rounds="$rounds")"
      records=$(value records "$log_dir/${mode}_$tag.log")
      [[ "$records" -eq "$n" ]] || die "bankcheck ($mode) recorded $records launches of $n"
    done
  done
  launches_of[$rounds]=$n
  for key in ncu "${modes[@]}"; do
    # shellcheck disable=SC2086  # a list of numbers
    wall[$key,$rounds]=$(median ${times[$key]})
  done
done

# Overhead per launch once CUPTI is set up, at the first launch count.
first=${round_counts[0]}
run kernels "$probe" --mode=kernels-only --rounds="$first" >/dev/null
gpu_ms=$(value kernel_ms "$log_dir/kernels.log")
declare -A warm passes_of
for mode in "${modes[@]}"; do
  # shellcheck disable=SC2086
  run "warm_$mode" "$probe" ${mode_args[$mode]} --rounds="$first" --sessions=2 >/dev/null
  warm[$mode]=$(value session2_ms "$log_dir/warm_$mode.log")
  passes_of[$mode]=$(value passes "$log_dir/warm_$mode.log")
done

{
  for rounds in "${round_counts[@]}"; do
    echo "wall ncu $rounds ${launches_of[$rounds]} ${wall[ncu,$rounds]}"
    for mode in "${modes[@]}"; do echo "wall $mode $rounds ${launches_of[$rounds]} ${wall[$mode,$rounds]}"; done
  done
  for mode in "${modes[@]}"; do echo "warm $mode ${launches_of[$first]} ${warm[$mode]} ${passes_of[$mode]}"; done
} | awk -v k="$gpu_ms" -v reps="$repeats" '
  function verdict(ok) { return ok ? "PASS" : "FAIL" }
  $1 == "wall" { t[$2, $4] = $5; if (!($4 in seen)) { seen[$4] = 1; counts[++nc] = $4 } }
  $1 == "warm" { warm[$2] = $4; warm_n = $3; passes[$2] = $5 }
  END {
    split("sass per-launch kernel user", modes, " ")
    label["sass"] = "default (SASS metrics), one session"
    label["per-launch"] = "default, a session per launch"
    label["kernel"] = "range profiler, kernel replay"
    label["user"] = "range profiler, Replay::kUser"
    printf "\nwhole process, median of %d runs (s), and ncu / bankcheck:\n", reps
    printf "%-48s", "launches"
    for (i = 1; i <= nc; i++) printf "%18d", counts[i]
    printf "\n%-48s", "ncu --metrics <core metrics>"
    for (i = 1; i <= nc; i++) printf "%18.2f", t["ncu", counts[i]] / 1000
    printf "\n"
    for (m = 1; m <= 4; m++) {
      printf "%-48s", "bankcheck, " label[modes[m]]
      for (i = 1; i <= nc; i++) {
        ratio = t["ncu", counts[i]] / t[modes[m], counts[i]]
        printf "%9.2f %5.1fx %s", t[modes[m], counts[i]] / 1000, ratio, (ratio >= 15 ? " " : "!")
      }
      printf "\n"
    }
    printf "(! : below 15x)\n"
    if (nc >= 2) {
      a = counts[1]; b = counts[nc]
      printf "\ncost of each further launch, from %d to %d launches (ms):\n", a, b
      printf "%-48s %10.1f\n", "ncu", (t["ncu", b] - t["ncu", a]) / (b - a)
      for (m = 1; m <= 4; m++)
        printf "%-48s %10.1f\n", "bankcheck, " label[modes[m]], (t[modes[m], b] - t[modes[m], a]) / (b - a)
    }
    printf "\noverhead per launch once set up, %d launches (second session in a process; the\n", warm_n
    printf "launches%s own GPU time, %.3f ms, subtracted once per pass):\n", "\047", k
    for (m = 1; m <= 4; m++) {
      o = (warm[modes[m]] - passes[modes[m]] * k) / warm_n
      printf "%-48s %10.3f ms (%d pass%s)%s\n", "bankcheck, " label[modes[m]], o, passes[modes[m]],
             passes[modes[m]] == 1 ? "" : "es", m == 1 ? "   target < 2 ms: " verdict(o < 2) : ""
    }
    r = t["ncu", counts[1]] / t["sass", counts[1]]
    printf "\nat %d launches, the default (SASS metrics, one session): %.1fx   target >= 15x: %s\n", counts[1], r, verdict(r >= 15)
  }'
