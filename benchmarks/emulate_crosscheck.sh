#!/usr/bin/env bash
# emulate_crosscheck.sh BUILD_DIR: the GPU-less gate against its oracle (docs/emulate.md), on a GPU
# machine. Runs the kernel suite of one build twice, every case:
#   1. measured: BUILD_DIR/suites/bankcheck_kernel_suite, counted through SASS metrics with every
#      case's per-instruction rows (BANKCHECK_ATTRIBUTE=1, BANKCHECK_REQUIRE_GPU=1);
#   2. emulated: BUILD_DIR/suites/bankcheck_kernel_suite_emulated, the same kernel objects linked
#      with the stand-in CUDA runtime (BANKCHECK_COUNTERS=emulate): counted from their sm_90 SASS;
# then compares every decided launch instruction by instruction (pc: executions, wavefronts, ideal)
# and kind by kind (ci/lib/emulate-results.py crosscheck), printing each difference and
#   decided N, equal E, differ D; undecided K by reason: ...
# A decided count that differs from the GPU's is a bug of the emulator, never a tolerance.
# Exit 0 when every decided launch is equal, 1 when one differs, 2 on a usage or tool error.
# Environment: LOG_DIR (default: a new temporary folder) keeps both runs' results and logs; SUITE
# (kernel, the default, or corpus) picks the suite.
set -euo pipefail

die() { echo "emulate_crosscheck.sh: $*" >&2; exit 2; }
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build="$(cd "$1" && pwd)" || die "no build folder $1"
# SUITE=corpus checks the corpus (corpus/CMakeLists.txt) instead of the kernel suite.
case "${SUITE:-kernel}" in
  kernel) folder="$build/suites" program=bankcheck_kernel_suite ;;
  corpus) folder="$build/corpus" program=bankcheck_corpus ;;
  *) die "SUITE must be kernel or corpus, not '$SUITE'" ;;
esac
measured="$folder/$program"
emulated="$folder/${program}_emulated"
for program in "$measured" "$emulated"; do [[ -x "$program" ]] || die "$program not found: build first"; done
command -v python3 >/dev/null || die "python3 is needed to compare the results"
compare="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/ci/lib/emulate-results.py"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/emulate_crosscheck.XXXXXX)}"
mkdir -p "$log_dir"
log_dir="$(cd "$log_dir" && pwd)"
# Both runs are given one folder; the emulated program writes beside it, where it says.
results="$log_dir/results"
emulated_results="$(BANKCHECK_RESULTS_DIR="$results" "$emulated" --bankcheck_results_dir)" ||
  die "$emulated --bankcheck_results_dir failed"
rm -rf "$results" "$emulated_results"
echo "logs: $log_dir"

# The suites' own verdicts (a case failing its baseline, say) do not stop the comparison: both runs
# go to the end, and their exit statuses are reported beside it. They run where ctest runs them,
# in the suite's folder: NVRTC names a run-time-compiled kernel's source after the working folder,
# and the baselines' lines were recorded there.
cd "$folder"
status=0
BANKCHECK_ATTRIBUTE=1 BANKCHECK_REQUIRE_GPU=1 BANKCHECK_RESULTS_DIR="$results" \
  "$measured" >"$log_dir/measured.log" 2>&1 || status=$?
echo "measured run: exit $status ($log_dir/measured.log)"
[[ -d "$results/cases" ]] || die "the measured run wrote no results; see $log_dir/measured.log"
status=0
BANKCHECK_COUNTERS=emulate BANKCHECK_RESULTS_DIR="$results" \
  "$emulated" >"$log_dir/emulated.log" 2>&1 || status=$?
echo "emulated run: exit $status ($log_dir/emulated.log)"
[[ -d "$emulated_results/cases" ]] || die "the emulated run wrote no results; see $log_dir/emulated.log"

python3 "$compare" crosscheck "$results" "$emulated_results"
