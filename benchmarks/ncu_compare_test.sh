#!/usr/bin/env bash
# ncu_compare_test.sh: the CTest test benchmarks/ncu_compare (label cpu, no GPU): ncu_compare.py, the
# comparison of ncu_crosscheck.sh and run_crosscheck.sh, on hand-made results and ncu CSV files
# (fixtures/ncu_compare/: a `bankcheck run` results file of four launches, one of them without shared
# memory, whose case names sort in another order than their launches; a suite results file with a
# graph record of two nodes; ncu's tables for both, with the profiled program's output mixed in,
# and one with a wrong store wavefront count). Exit 0 when every check passes, 1 otherwise, 77
# (skipped) without python3.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fixtures="$here/fixtures/ncu_compare"
compare="$here/ncu_compare.py"
if ! command -v python3 >/dev/null; then
  echo "skipped: python3 not found (ncu_compare.py needs it)"
  exit 77
fi
work=$(mktemp -d /tmp/ncu_compare_test.XXXXXX)
trap 'rm -rf "$work"' EXIT

failures=0
# expect NAME STATUS REGEX ARGS...: ncu_compare.py ARGS exits with STATUS and prints a line matching REGEX.
expect() {
  local name=$1 want=$2 pattern=$3 status=0
  shift 3
  python3 "$compare" "$@" >"$work/out.txt" 2>&1 || status=$?
  if [[ "$status" -ne "$want" ]] || ! grep -Eq -- "$pattern" "$work/out.txt"; then
    echo "FAILED: $name: exit status $status (expected $want), output (expected a line matching '$pattern'):"
    sed 's/^/    /' "$work/out.txt"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

run=("$fixtures/kinds.tsv" "$fixtures/run.json")
expect "bankcheck run results agree with ncu, launch by launch" 0 '^4 launches compared; 0 values differ$' \
  --match launch-index --ideal "${run[@]}" "$fixtures/ncu_run.csv"
expect "each case is matched to ncu's ID of its launch index, not to its place in the file" 0 \
  '^matmul/64x64x32/matmul_kernel#2 +3 ldsm +wavefronts +2048 +2048  ok$' \
  --match launch-index --ideal "${run[@]}" "$fixtures/ncu_run.csv"
expect "the ideal is compared with --ideal" 0 '^transpose/32/transpose_kernel +0 st +ideal +64 +64  ok$' \
  --match launch-index --ideal "${run[@]}" "$fixtures/ncu_run.csv"
expect "a wavefront count ncu does not give DIFFERS" 1 \
  '^transpose/32/transpose_kernel +0 st +wavefronts +128 +120  DIFFERS$' \
  --match launch-index --ideal "${run[@]}" "$fixtures/ncu_run_differs.csv"
expect "and so do the conflicts derived from it" 1 \
  '^transpose/32/transpose_kernel +0 st +conflicts +64 +56  DIFFERS$' \
  --match launch-index "${run[@]}" "$fixtures/ncu_run_differs.csv"
grep -v '^"3",' "$fixtures/ncu_run.csv" >"$work/ncu_without_3.csv"
expect "a record of a launch ncu did not profile DIFFERS" 1 \
  '^matmul/64x64x32/matmul_kernel#2 +3 ncu profiled no launch 3  DIFFERS$' \
  --match launch-index "${run[@]}" "$work/ncu_without_3.csv"
python3 -c '
import json, sys
results = json.load(open(sys.argv[1]))
del results["cases"]["vectorized_elementwise_kernel"]
json.dump(results, open(sys.argv[2], "w"))' "$fixtures/run.json" "$work/run_without_1.json"
expect "a launch ncu profiled that bankcheck did not record DIFFERS" 1 \
  '^\(no bankcheck record\) +1 ncu profiled vectorized_elementwise_kernel  DIFFERS$' \
  --match launch-index "$fixtures/kinds.tsv" "$work/run_without_1.json" "$fixtures/ncu_run.csv"
expect "matched in order instead, the same files differ (their cases sort in another order)" 1 'DIFFERS' \
  --match order "${run[@]}" "$fixtures/ncu_run.csv"
expect "suite results agree in order, a graph record taking its two nodes' rows" 0 \
  '^3 launches compared; 0 values differ$' "$fixtures/kinds.tsv" "$fixtures/suite.json" "$fixtures/ncu_suite.csv"
# cp.async's global reads (global_ldgsts): its sectors compared with ncu's launch metric of them,
# the traffic column of its kind-table line; a record that did not count the kind (a range-profiler
# record's "not_counted") is not compared in it. ldgsts_files SECTORS NOT_COUNTED: the suite files
# with one 4-LDGSTS launch counting 64 sectors, ncu's table saying SECTORS.
ldgsts_files() {
  python3 - "$fixtures" "$work" "$1" "$2" <<'PY'
import csv, io, json, sys
fixtures, work, sectors, not_counted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "yes"
metric = "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum"
with open(f"{fixtures}/kinds.tsv") as f, open(f"{work}/kinds_ldgsts.tsv", "w") as out:
    out.write(f.read() + f"global_ldgsts\tldgsts_g\tsmsp__sass_inst_executed_op_ldgsts.sum\t{metric}\t-\t-\t-\t-\n")
results = json.load(open(f"{fixtures}/suite.json"))
launch = results["cases"]["classic/stride2"]["launches"][0]
launch["shared_ldgsts"] = {"instructions": 4, "wavefronts": 16, "ideal": 16, "conflicts": 0}
launch["global_ldgsts"] = {"instructions": 4, "wavefronts": 64}
if not_counted:
    launch["counters"] = "range profiler"
    del launch["global_ldgsts"]
    launch["not_counted"] = ["global_ldgsts"]
json.dump(results, open(f"{work}/suite_ldgsts.json", "w"))
lines = open(f"{fixtures}/ncu_suite.csv").read().splitlines(keepends=True)
with open(f"{work}/ncu_ldgsts.csv", "w") as out:
    header = None
    for line in lines:
        if not line.startswith('"'):
            out.write(line)
            continue
        row = next(csv.reader([line]))
        if header is None and row[0] == "ID":
            header = row
            row = row + [metric]
        elif header is not None:
            row = row + ["sector" if not row[0].isdigit() else "0"]
            if row[0] == "0":
                row[header.index("smsp__sass_inst_executed_op_ldgsts.sum")] = "4"
                row[header.index("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum")] = "16"
                row[-1] = str(sectors)
        text = io.StringIO()
        csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(row)
        out.write(text.getvalue())
PY
}
ldgsts=("$work/kinds_ldgsts.tsv" "$work/suite_ldgsts.json" "$work/ncu_ldgsts.csv")
ldgsts_files 64 no
expect "cp.async's global sectors agree with ncu's launch metric of them" 0 \
  '^classic/stride2 +0 ldgsts_g +wavefronts +64 +64  ok$' "${ldgsts[@]}"
ldgsts_files 72 no
expect "cp.async's global sectors that ncu counts otherwise differ" 1 \
  '^classic/stride2 +0 ldgsts_g +wavefronts +64 +72  DIFFERS$' "${ldgsts[@]}"
ldgsts_files 64 yes
expect "a record that did not count cp.async's global reads is not compared in them" 0 \
  '^3 launches compared; 0 values differ$' "${ldgsts[@]}"
echo '{"format": "bankcheck-baseline", "version": 1}' >"$work/baseline.json"
expect "a file that is not a bankcheck results file is an input error" 2 'not a bankcheck results file' \
  --match launch-index "$fixtures/kinds.tsv" "$work/baseline.json" "$fixtures/ncu_run.csv"
expect "a CSV without ncu's table is an input error" 2 'no ncu table' \
  --match launch-index "${run[@]}" "$fixtures/kinds.tsv"

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
