#!/usr/bin/env bash
# run_crosscheck.sh BUILD_DIR -- COMMAND [ARGS...]: what `bankcheck run` records of a program's launches,
# next to Nsight Compute's own metrics on the same launches (ncu is the oracle). For any program:
# a CUDA binary (bankcheck_launch_loop, the CuTe example), `python3 examples/python/triton_kernels.py`.
#
#   1. bankcheck: `bankcheck run -o LOG_DIR/run.json -- COMMAND...`: one case per kernel launch, each
#      description starting with "launch <N>", N counting every kernel launch of the process.
#   2. ncu: `ncu --metrics <every metric of the kind table, with every hardware pair> --csv --page raw
#      --print-units base COMMAND...`: every launch, ID N for the process's launch N.
#   3. ncu_compare.py --match launch-index --ideal (beside this script, shared with ncu_crosscheck.sh):
#      a table per launch and kind, instructions, wavefronts, ideal and conflicts as bankcheck recorded
#      them and as ncu's metrics give them, "ok" or "DIFFERS"; a launch only one side has DIFFERS too.
# The program must launch the same kernels in the same order on every run. Its output goes to the logs.
# Exit 0 when everything agrees, 1 when anything differs, 2 on a usage or tool error (no usable GPU,
# the program failing under either tool, no results).
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder).
set -euo pipefail

die() { echo "run_crosscheck.sh: $*" >&2; exit 2; }
usage() { echo "usage: $0 BUILD_DIR -- COMMAND [ARGS...]" >&2; exit 2; }
[[ $# -ge 3 && "$2" == "--" ]] || usage
build=$1
shift 2
probe="$build/benchmarks/bankcheck_speed_probe"
cli="$build/bin/bankcheck"
for f in "$probe" "$cli"; do [[ -x "$f" ]] || die "$f not found: build first"; done

source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"
command -v python3 >/dev/null || die "python3 is needed to read ncu's CSV"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/run_crosscheck.XXXXXX)}"
mkdir -p "$log_dir"
echo "logs: $log_dir"
"$probe" --print-kinds >"$log_dir/kinds.tsv" || die "$probe --print-kinds failed"
metrics=$(awk -F'\t' '{for (i = 3; i <= 7; i++) if ($i != "-") print $i}' "$log_dir/kinds.tsv" | sort -u | paste -sd, -)

# fail_with STATUS WHAT LOG: a tool's run that failed, with the end of its log.
fail_with() {
  echo "run_crosscheck.sh: $2 exited with $1; its output ($3) ends:" >&2
  tail -n 20 "$3" >&2
  exit 2
}

rm -f "$log_dir/run.json"
status=0
"$cli" run -o "$log_dir/run.json" -- "$@" >"$log_dir/bankcheck.log" 2>&1 || status=$?
((status == 0)) || fail_with "$status" "bankcheck run" "$log_dir/bankcheck.log"
[[ -s "$log_dir/run.json" ]] || die "bankcheck run wrote no results; see $log_dir/bankcheck.log"

status=0
"$ncu" --metrics "$metrics" --csv --page raw --print-units base "$@" >"$log_dir/ncu.csv" 2>"$log_dir/ncu.log" ||
  status=$?
((status == 0)) || fail_with "$status" "ncu" "$log_dir/ncu.log"
if grep -q '==ERROR==' "$log_dir/ncu.log" "$log_dir/ncu.csv"; then
  grep -h '==ERROR==' "$log_dir/ncu.log" "$log_dir/ncu.csv" | head -n 5 >&2
  die "ncu reported errors; see $log_dir/ncu.log and $log_dir/ncu.csv"
fi
grep -q '^"ID"' "$log_dir/ncu.csv" || die "ncu produced no results; see $log_dir/ncu.log and $log_dir/ncu.csv"

python3 "$(dirname "${BASH_SOURCE[0]}")/ncu_compare.py" --match launch-index --ideal \
  "$log_dir/kinds.tsv" "$log_dir/run.json" "$log_dir/ncu.csv"
