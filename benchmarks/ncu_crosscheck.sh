#!/usr/bin/env bash
# ncu_crosscheck.sh BUILD_DIR [CASES]: every count bankcheck reports, next to Nsight Compute's
# own metric on the same launches (ncu is the oracle).
#
#   1. bankcheck: the kernel suite measures the cases (CASES: BANKCHECK_CASES's glob patterns over
#      case names, e.g. 'transpose/*,ldmatrix/row_major_x4'; default every case) and writes
#      its results; pass or fail does not matter here, only what was measured.
#   2. ncu: the same cases with BANKCHECK_COUNTERS=off (the launches run unmeasured), under
#      `ncu --profile-from-start off --metrics <every metric of the kind table, with every hardware
#      pair>`: a case's measured launches run between cudaProfilerStart and cudaProfilerStop, so ncu
#      profiles those and not the case's other launches (a correctness run after the measured one).
#   3. ncu_compare.py --match order (beside this script, shared with run_crosscheck.sh): a table per
#      launch and kind: instructions, wavefronts, conflicts as bankcheck recorded them and as ncu's
#      metric gives them, "ok" or "DIFFERS". ncu's conflicts are its instrumented conflict metric
#      where the kind has one; for LDS/STS, whose conflicts bankcheck derives from the hardware pair
#      (docs/counters.md), the same derivation on ncu's readings. Hardware-sourced values are
#      compared too, and marked "(hw)".
# Launches are matched in order: the suite runs its cases sorted by name, as the results file
# lists them; the record of a graph launch whose nodes run one kernel takes ncu's rows of all its
# nodes, added up. Exit 0 when everything agrees, 1 when anything differs, 2 on a usage or tool error.
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder), SUITE (kernel, the default, or corpus: corpus/CMakeLists.txt).
set -euo pipefail

die() { echo "ncu_crosscheck.sh: $*" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [CASES]" >&2; exit 2; }
build=$1
export BANKCHECK_CASES=${2:-*}
case "${SUITE:-kernel}" in
  kernel) suite="$build/suites/bankcheck_kernel_suite" ;;
  corpus) suite="$build/corpus/bankcheck_corpus" ;;
  *) die "SUITE must be kernel or corpus, not '$SUITE'" ;;
esac
probe="$build/benchmarks/bankcheck_speed_probe"
cli="$build/bin/bankcheck"
for f in "$suite" "$probe" "$cli"; do [[ -x "$f" ]] || die "$f not found: build first"; done

source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"
command -v python3 >/dev/null || die "python3 is needed to read ncu's CSV"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/ncu_crosscheck.XXXXXX)}"
mkdir -p "$log_dir"
"$probe" --print-kinds >"$log_dir/kinds.tsv"
metrics=$(awk -F'\t' '{for (i = 3; i <= 7; i++) if ($i != "-") print $i}' "$log_dir/kinds.tsv" | sort -u | paste -sd, -)

rm -rf "$log_dir/results"
BANKCHECK_RESULTS_DIR="$log_dir/results" "$suite" >"$log_dir/bankcheck.log" 2>&1 || true
"$cli" merge-results "$log_dir/results" -o "$log_dir/results.json" >/dev/null ||
  die "no results from the suite; see $log_dir/bankcheck.log"

BANKCHECK_COUNTERS=off "$ncu" --profile-from-start off --metrics "$metrics" --csv --page raw --print-units base \
  "$suite" >"$log_dir/ncu.csv" 2>"$log_dir/ncu.log" || true
grep -q '"ID"' "$log_dir/ncu.csv" || die "ncu produced no results; see $log_dir/ncu.log and $log_dir/ncu.csv"

python3 "$(dirname "${BASH_SOURCE[0]}")/ncu_compare.py" --match order \
  "$log_dir/kinds.tsv" "$log_dir/results.json" "$log_dir/ncu.csv"
