#!/usr/bin/env bash
# The GPU-less gate (docs/emulate.md): runs the kernel suite's emulated program on this machine (no
# GPU: every launch recorded and counted from the kernels' sm_90 SASS) against the committed
# baselines (baselines/sm_90, recorded on an H100/H200), one CTest test per topic (ctest -L
# emulate), and prints
#   decided N of M cases, equal to the baselines E, differ D; undecided K by reason: ...
#   output checks: ran emulated and passed N of M cases, failed F; not computed K by reason: ...
# A decided case goes through the same checks as on the GPU (its baseline, its annotations, its
# lines): one that differs fails this script. An undecided case skips, saying which instruction or
# CUDA call it could not decide. Then the same two lines for the corpus (corpus/CMakeLists.txt: CUB's
# and CuTe's code as a kernel suite of its own, against corpus/baselines), each beginning "corpus: ":
# how much of code written elsewhere the emulator decides, and the instructions it does not, grouped.
# Extra arguments go to ctest. Needs python3 for the summary.
#
#   ci/jobs/emulate.sh --help      this help, and nothing built
#   ci/jobs/emulate.sh --summary   only the summary, of the results the last run of the emulated tests left
#                             (ci/test.sh runs them: they are CPU tests), with its exit status
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { bankcheck_help "$0"; exit 0; }

emulated="$BUILD_DIR/suites/bankcheck_kernel_suite_emulated"
corpus="$BUILD_DIR/corpus/bankcheck_corpus_emulated"
# Where the emulated program's cases write, with ci/test.sh's BANKCHECK_RESULTS_DIR: the program's
# rule (ResultsDir), asked of it.
results_folder() {
  [[ -x "$emulated" ]] || { echo "bankcheck: $emulated was not built (it needs the CUDA toolkit)" >&2; exit 1; }
  BANKCHECK_RESULTS_DIR="${BANKCHECK_RESULTS_DIR:-$BUILD_DIR/results}" "$emulated" --bankcheck_results_dir
}
# The corpus's: its tests write to its own folder whatever BANKCHECK_RESULTS_DIR says
# (TEST_ENVIRONMENT in corpus/CMakeLists.txt), the one its program has compiled in.
corpus_results_folder() { env -u BANKCHECK_RESULTS_DIR "$corpus" --bankcheck_results_dir; }
status=0
if [[ "${1:-}" == "--summary" ]]; then
  results="$(results_folder)"
  [[ -d "$results/cases" ]] || { echo "bankcheck: no emulated results in $results: run ci/test.sh first" >&2; exit 1; }
else
  bankcheck_build
  results="$(results_folder)"
  rm -rf "$results"
  if [[ -x "$corpus" ]]; then rm -rf "$(corpus_results_folder)"; fi
  ctest --test-dir "$BUILD_DIR" -L emulate -j "$JOBS" --output-on-failure "$@" || status=$?
fi
# A folder's results merged by bankcheck, whose rule (each program's newest run) leaves out the
# fragments an earlier run left there; prints the file.
merged() {
  "$BUILD_DIR/bin/bankcheck" merge-results "$1" -o "$1/results.json" >&2 || exit 2
  echo "$1/results.json"
}
summary=0
python3 "$BANKCHECK_ROOT/ci/lib/emulate-results.py" summary "$(merged "$results")" || summary=$?
# The corpus's two lines, "corpus: " before each; a corpus case that differs or fails fails this
# script as the kernel suite's do.
if [[ -x "$corpus" && -d "$(corpus_results_folder)/cases" ]]; then
  corpus_status=0
  corpus_lines="$(python3 "$BANKCHECK_ROOT/ci/lib/emulate-results.py" summary "$(merged "$(corpus_results_folder)")")" ||
    corpus_status=$?
  sed 's/^/corpus: /' <<<"$corpus_lines"
  ((summary != 0)) || summary=$corpus_status
else
  echo "corpus: no emulated results (its emulated program was not built, or its tests did not run)"
fi
((summary == 0)) || exit "$summary"
exit "$status"
