#!/usr/bin/env bash
# wide_access_probe.sh BUILD_DIR OUT_DIR: what the GPU counts for wide shared accesses whose lanes
# share addresses. Runs BUILD_DIR/benchmarks/bankcheck_wide_access_probe under `bankcheck run` (every
# launch measured; bankcheck's counts equal ncu's, docs/counters.md) and leaves OUT_DIR/results.json
# and OUT_DIR/patterns.txt (each launch's kind and lane indices). Then
#   python3 framework/core/model/testdata/make_paired_loads_fixture.py OUT_DIR
# writes the bank model test's fixture from them (framework/core/model/testdata/paired_loads_fixture.inc).
# Exit 0 when it measured, 1 when the run failed, 2 on a usage error.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 2; }
probe="$1/benchmarks/bankcheck_wide_access_probe"
bankcheck="$1/bin/bankcheck"
[[ -x "$probe" && -x "$bankcheck" ]] || { echo "wide_access_probe.sh: build $probe and $bankcheck first" >&2; exit 2; }
mkdir -p "$2"
out=$(cd "$2" && pwd)
"$bankcheck" run -o "$out/results.json" -- "$probe" "$out/patterns.txt"
echo "wide_access_probe.sh: $out/results.json, $out/patterns.txt"
