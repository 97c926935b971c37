#!/usr/bin/env bash
# The emulator's oracle (docs/emulate.md): the kernel suite's real sm_90 SASS emulated and compared,
# instruction by instruction, with per-instruction rows a GPU measured. Needs no GPU.
#
#   benchmarks/emulate_oracle.sh BUILD RESULTS_CASES [case prefix...]
#
# BUILD: a build folder with bankcheck_emulate_oracle and the kernel suite (suites/bankcheck_kernel_suite)
# whose SASS the results were measured from (SUITE=<program> names another build's suite instead); RESULTS_CASES: results/cases of a run with per-instruction
# rows (bankcheck run / the suite with attribution). nvdisasm and cuobjdump from the toolkit or from the
# nvidia-cuda-nvdisasm / nvidia-cuda-cuobjdump wheels on PATH. Prints one line per launch and
# "decided N, equal N, differ D; undecided M; ..."; exits 1 when any decided launch differs.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD RESULTS_CASES [case prefix...]" >&2
  exit 2
fi
build="$1"
cases="$2"
shift 2
exec "$build/framework/emulate/bankcheck_emulate_oracle" "${SUITE:-$build/suites/bankcheck_kernel_suite}" "$cases" "$@"
