#!/usr/bin/env bash
# emulate_speed.sh BUILD_DIR: what the GPU-less gate costs against the GPU, on a GPU machine. Times
# the kernel suite's two programs of one build, whole processes, every case, as ctest runs them
# (from BUILD_DIR/suites, default counting, no attribution pass):
#   measured  BUILD_DIR/suites/bankcheck_kernel_suite           (BANKCHECK_REQUIRE_GPU=1)
#   emulated  BUILD_DIR/suites/bankcheck_kernel_suite_emulated  (BANKCHECK_COUNTERS=emulate)
# alternately, REPEATS (default 3) runs each after one untimed run of each (the machine's first-use
# costs fall on none), each into a results folder of its own. Prints every wall time, the medians
# and emulated / measured of the medians: the ratio the emulator's speed target is stated in
# (docs/emulate.md). No limit is asserted: exit 0 when every run succeeded, 1 when one failed (its
# log's end is printed), 2 on a usage error.
# Environment: LOG_DIR (default: a new temporary folder), REPEATS.
set -euo pipefail

die() { echo "emulate_speed.sh: $*" >&2; exit 2; }
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build="$(cd "$1" && pwd)" || die "no build folder $1"
measured="$build/suites/bankcheck_kernel_suite"
emulated="$build/suites/bankcheck_kernel_suite_emulated"
for program in "$measured" "$emulated"; do [[ -x "$program" ]] || die "$program not found: build first"; done
repeats="${REPEATS:-3}"
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer"
log_dir="${LOG_DIR:-$(mktemp -d /tmp/emulate_speed.XXXXXX)}"
mkdir -p "$log_dir"
log_dir="$(cd "$log_dir" && pwd)"
echo "logs: $log_dir"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# run NAME ROUND: one whole run of the program NAME names; prints its wall ms. A run that fails
# ends the script: a failing suite's time says nothing of its speed.
run() {
  local name=$1 round=$2 start end status=0
  local results="$log_dir/results-$name-$round" log="$log_dir/$name-$round.log"
  rm -rf "$results" "$results-emulated"
  start=$(now_ms)
  # From the suites' folder, as ctest runs them (the NVRTC cases' lines were recorded there).
  if [[ $name == measured ]]; then
    (cd "$build/suites" && BANKCHECK_REQUIRE_GPU=1 BANKCHECK_RESULTS_DIR="$results" "$measured") >"$log" 2>&1 || status=$?
  else
    (cd "$build/suites" && BANKCHECK_COUNTERS=emulate BANKCHECK_RESULTS_DIR="$results" "$emulated") >"$log" 2>&1 || status=$?
  fi
  end=$(now_ms)
  if ((status != 0)); then
    echo "emulate_speed.sh: the $name run exited with $status; its log ($log) ends:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  echo $((end - start))
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

run measured warmup >/dev/null
run emulated warmup >/dev/null
times_measured=() times_emulated=()
for ((round = 1; round <= repeats; round++)); do
  times_measured+=("$(run measured "$round")")
  times_emulated+=("$(run emulated "$round")")
done
m=$(median "${times_measured[@]}")
e=$(median "${times_emulated[@]}")
echo "measured ms: ${times_measured[*]} (median $m)"
echo "emulated ms: ${times_emulated[*]} (median $e)"
awk -v e="$e" -v m="$m" 'BEGIN { printf "emulated / measured: %.2f (median %d ms / %d ms, %d runs each)\n", e / m, e, m, '"$repeats"' }'
