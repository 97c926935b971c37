#!/usr/bin/env bash
# ncu_source_crosscheck.sh BUILD_DIR [CASES]: bankcheck's per-instruction attribution next to
# Nsight Compute's Source page (SourceCounters section) on the same cases (ncu is the oracle).
#
#   1. bankcheck: the kernel suite runs the cases (CASES: BANKCHECK_CASES's glob patterns over case
#      names) with BANKCHECK_ATTRIBUTE=1 and writes
#      its results: every launch's per-instruction table (docs/attribution.md).
#   2. ncu: the same cases with BANKCHECK_COUNTERS=off under `ncu --section SourceCounters`, then its
#      Source page as CSV (`--page source --print-source sass`).
#   3. Per kernel, every SASS instruction with shared-memory wavefronts: offset, opcode, executions,
#      wavefronts, ideal and excess from both. A kernel agrees when its rows are the same; ncu's
#      columns are "Instructions Executed", "L1 Wavefronts Shared", "... Ideal", "... Excessive".
#      With SPACE=global, every instruction with global-memory sectors instead (bankcheck's
#      global_* kinds), against "L2 Theoretical Sectors Global", "... Ideal", "... Excessive".
# Kernels are matched by their instruction tables (ncu names kernels its own way). Exit 0 when every
# kernel agrees, 1 when any differs, 2 on a usage or tool error.
# Environment: NCU (as find_ncu.sh), LOG_DIR (default: a new temporary folder), SPACE (shared, the
# default, or global).
set -euo pipefail

die() { echo "ncu_source_crosscheck.sh: $*" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [CASES]" >&2; exit 2; }
build=$1
export BANKCHECK_CASES=${2:-transpose/*/128x128,ldmatrix/row_major_x4}
suite="$build/suites/bankcheck_kernel_suite"
cli="$build/bin/bankcheck"
for f in "$suite" "$cli"; do [[ -x "$f" ]] || die "$f not found: build first"; done

source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"
command -v python3 >/dev/null || die "python3 is needed to read ncu's CSV"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/ncu_source_crosscheck.XXXXXX)}"
mkdir -p "$log_dir"
rm -rf "$log_dir/results"
# BANKCHECK_SUPERVISED: the cases run in this process, not in a child that ncu would have to follow.
BANKCHECK_SUPERVISED=1 BANKCHECK_ATTRIBUTE=1 BANKCHECK_RESULTS_DIR="$log_dir/results" \
  "$suite" >"$log_dir/bankcheck.log" 2>&1 || true
"$cli" merge-results "$log_dir/results" -o "$log_dir/results.json" >/dev/null ||
  die "no results from the suite; see $log_dir/bankcheck.log"

BANKCHECK_SUPERVISED=1 BANKCHECK_COUNTERS=off "$ncu" --section SourceCounters -f -o "$log_dir/source" \
  "$suite" >"$log_dir/ncu.log" 2>&1 || true
[[ -f "$log_dir/source.ncu-rep" ]] || die "ncu wrote no report; see $log_dir/ncu.log"
"$ncu" --import "$log_dir/source.ncu-rep" --page source --print-source sass --csv >"$log_dir/source.csv" 2>&1 ||
  die "ncu could not print its Source page; see $log_dir/source.csv"

python3 - "$log_dir/results.json" "$log_dir/source.csv" "${SPACE:-shared}" <<'EOF'
import csv, json, sys

space = sys.argv[3]
if space not in ("shared", "global"):
    sys.exit(f"ncu_source_crosscheck.sh: SPACE is shared or global, not {space!r}")
columns = {"shared": ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L1 Wavefronts Shared Excessive"),
           "global": ("L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Ideal",
                      "L2 Theoretical Sectors Global Excessive")}[space]

# bankcheck: one table per attributed kernel (launches of one kernel share it). Kernels with the
# same rows (e.g. two strides that cost the same) are matched in launch order, each once.
tables = {}
for case_name, case in sorted(json.load(open(sys.argv[1]))["cases"].items()):
    for launch in case.get("launches", []):
        rows = tuple(sorted((i["pc"], i["opcode"], i["executions"], i["wavefronts"], i["ideal"])
                            for i in launch.get("instructions", [])
                            if i["wavefronts"] and i["kind"].startswith(space + "_")))
        if rows and (case_name, launch["kernel"]) not in tables.get(rows, []):
            tables.setdefault(rows, []).append((case_name, launch["kernel"]))

# ncu: a "Kernel Name" line, a header, then one row per SASS instruction at its address.
def opcode(text):
    words = text.split()
    return words[1] if words and words[0].startswith("@") else (words[0] if words else "")

ncu_tables, rows, i = [], list(csv.reader(open(sys.argv[2]))), 0
while i < len(rows):
    if not rows[i] or rows[i][0] != "Kernel Name":
        i += 1
        continue
    name, col = rows[i][1], {h: k for k, h in enumerate(rows[i + 1])}
    i += 2
    base, table = None, []
    while i < len(rows) and rows[i] and rows[i][0] != "Kernel Name":
        row, i = rows[i], i + 1
        address = int(row[0], 16)
        base = address if base is None else base
        wavefronts = int(row[col[columns[0]]])
        if wavefronts:
            table.append((address - base, opcode(row[col["Source"]]), int(row[col["Instructions Executed"]]),
                          wavefronts, int(row[col[columns[1]]]), int(row[col[columns[2]]])))
    if table and (name, table) not in ncu_tables:  # the page repeats a kernel once per source view
        ncu_tables.append((name, table))

differ = 0
for name, table in ncu_tables:
    key = tuple(sorted(row[:5] for row in table))
    match = tables[key].pop(0) if tables.get(key) else None
    bad = [row for row in table if row[5] != row[3] - row[4]]
    ok = match is not None and not bad
    differ += not ok
    print(f"ncu kernel {name}\n  bankcheck: " + (f"{match[0]}, {match[1]}" if match else "NO TABLE WITH THESE ROWS"))
    unit = "wavefronts" if space == "shared" else "sectors"
    print(f"  {'offset':>8}  {'opcode':<16} {'exec':>8} {unit:>11} {'ideal':>9} {'excessive':>10}")
    for offset, op, executed, wavefronts, ideal, excessive in table:
        print(f"  {offset:#08x}  {op:<16} {executed:>8} {wavefronts:>11} {ideal:>9} {excessive:>10}")
    print(f"  {'same instructions, same counts' if ok else 'DIFFERS'}\n")
print(f"{len(ncu_tables)} kernels compared; {differ} differ")
sys.exit(1 if differ or not ncu_tables else 0)
EOF
