#!/usr/bin/env bash
# kernel_lines_check.sh BUILD_DIR: bankcheck's own kernels checked where their conflicts are
# stated, on a GPU. Records the sgemm_tiled baselines again (its three cases are one templated
# kernel, whose launches are named SgemmTiled<...>: the counts stay, the names change; review the
# diff it prints), then runs every case of the kernel suite and prints, per case, its status and
# what states its conflicts (case: c.expect; lines: line annotations; baseline: neither), and the
# counts of each. Exit status: the suite's (0 when every case passed). Environment: RESULTS_DIR
# (default BUILD_DIR/kernel-lines-results).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$1
results=${RESULTS_DIR:-$build/kernel-lines-results}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
[[ -x "$build/suites/bankcheck_kernel_suite" ]] || { echo "kernel_lines_check.sh: build $build first" >&2; exit 2; }

BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='sgemm_tiled/*' \
  ctest --test-dir "$build" -R '^KernelSuite/sgemm_tiled$' --output-on-failure
git -C "$source_dir" diff --stat -- baselines

rm -rf "$results"
status=0
BANKCHECK_RESULTS_DIR="$results" ctest --test-dir "$build" -L gpu -R '^KernelSuite/' --output-on-failure || status=$?
"$build/bin/bankcheck" merge-results "$results" >/dev/null
python3 - "$results/results.json" <<'EOF'
import collections, json, sys
cases = json.load(open(sys.argv[1]))["cases"]
by = collections.Counter()
for name, case in sorted(cases.items()):
    print(f"{case['status']:8} {case.get('expected_by', '?'):9} {name}")
    by[(case["status"], case.get("expected_by", "?"))] += 1
print(", ".join(f"{n} {status} by {what}" for (status, what), n in sorted(by.items())))
EOF
exit "$status"
