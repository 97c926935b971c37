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
#   3. A table per launch and kind: instructions, wavefronts, conflicts as bankcheck recorded them
#      and as ncu's metric gives them, "ok" or "DIFFERS". ncu's conflicts are its instrumented
#      conflict metric where the kind has one; for LDS/STS, whose conflicts bankcheck derives from
#      the hardware pair (docs/counters.md), the same derivation on ncu's readings. Hardware-sourced
#      values are compared too, and marked "(hw)".
# Launches are matched in order: the suite runs its cases sorted by name, as the results file
# lists them; the record of a graph launch whose nodes run one kernel takes ncu's rows of all its
# nodes, added up. Exit 0 when everything agrees, 1 when anything differs, 2 on a usage or tool error.
# Environment: NCU (default: ncu on PATH, else under /usr/local/cuda*/bin or /opt/nvidia/nsight-compute),
# LOG_DIR (default: a new temporary folder).
set -euo pipefail

die() { echo "ncu_crosscheck.sh: $*" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [CASES]" >&2; exit 2; }
build=$1
export BANKCHECK_CASES=${2:-*}
suite="$build/suites/bankcheck_kernel_suite"
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

python3 - "$log_dir/kinds.tsv" "$log_dir/results.json" "$log_dir/ncu.csv" <<'EOF'
import csv, json, sys

kinds = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
results = json.load(open(sys.argv[2]))
rows = list(csv.reader(line for line in open(sys.argv[3]) if line.startswith('"')))
header, launches = rows[0], rows[1:]
launches = [l for l in launches if l and l[0] != "" and l[0].isdigit()]  # drop the units row
col = {name: i for i, name in enumerate(header)}
ideal_of = {}  # kind key -> ncu-derived ideal, per launch (for kinds the hardware pair also counts)

def metric(launch, name):
    if name == "-" or name not in col:
        return None
    text = launch[col[name]].replace(",", "")
    try:
        return round(float(text))
    except ValueError:
        return None

def summed(rows):
    """ncu's rows of several kernel nodes as one row: each metric added up."""
    total = list(rows[0])
    for name, i in col.items():
        values = [metric(row, name) for row in rows]
        if all(v is not None for v in values):
            total[i] = str(sum(values))
    return total

records = []
for case, result in sorted(results["cases"].items()):
    for i, launch in enumerate(result["launches"]):
        records.append((case, i, launch))
# A record of a graph launch whose nodes run one kernel holds them all (docs/counters.md): ncu
# profiles each node, so such a record takes as many of ncu's rows as it names nodes.
nodes = [max(1, len(record.get("graph_kernels", []))) for _, _, record in records]
if sum(nodes) != len(launches):
    print(f"ncu profiled {len(launches)} launches, bankcheck recorded {len(records)} "
          f"({sum(nodes)} kernel launches and nodes): cannot match them")
    sys.exit(1)
matched, at = [], 0
for n in nodes:
    matched.append(summed(launches[at:at + n]))
    at += n
launches = matched

differs = 0
print(f"{'case':44} {'#':>2} {'kind':6} {'field':12} {'bankcheck':>12} {'ncu':>12}  verdict")
for (case, index, record), launch in zip(records, launches):
    name = launch[col["Kernel Name"]] if "Kernel Name" in col else "?"
    derived = {}
    for key, label, instr, wf, conf, hw_wf, hw_conf, also in kinds:
        ncu_ideal = None
        if conf != "-":
            w, c = metric(launch, wf), metric(launch, conf)
            ncu_ideal = None if w is None or c is None else w - c
        elif hw_wf != "-":
            w, c = metric(launch, hw_wf), metric(launch, hw_conf)
            ncu_ideal = None if w is None or c is None else w - c
        derived[key] = ncu_ideal
    for key, label, instr, wf, conf, hw_wf, hw_conf, also in kinds:
        block = record.get(key)
        ncu_instr = metric(launch, instr)
        if block is None and not ncu_instr:
            continue  # neither side saw this kind
        block = block or {"instructions": 0, "wavefronts": 0, "ideal": 0, "conflicts": 0}
        ncu_ideal = derived[key]
        if also != "-" and ncu_ideal is not None and derived.get(also) is not None:
            ncu_ideal -= derived[also]
        ncu_wf = metric(launch, wf)
        fields = [("instructions", block.get("instructions"), ncu_instr),
                  ("wavefronts", block.get("wavefronts"), ncu_wf)]
        # Counted through SASS metrics, the cp.async ideal is the per-instruction SASS ideal, which
        # no launch metric of ncu gives (its conflict counter follows the other definition:
        # docs/counters.md); benchmarks/ncu_source_crosscheck.sh compares it with ncu's Source page.
        sass_cp_async = key == "shared_ldgsts" and record.get("counters") == "sass metrics"
        if "conflicts" in block and not sass_cp_async:
            hw = " (hw)" if block.get("ideal_source") == "hardware" else ""
            ncu_conf = None if ncu_ideal is None or ncu_wf is None else ncu_wf - ncu_ideal
            fields.append(("conflicts" + hw, block["conflicts"], ncu_conf))
        for field, ours, theirs in fields:
            if wf == "-" and field == "wavefronts":
                continue
            ok = ours == theirs
            differs += not ok
            print(f"{case[:44]:44} {index:>2} {label:6} {field:12} {str(ours):>12} {str(theirs):>12}  "
                  f"{'ok' if ok else 'DIFFERS'}")
print(f"\n{len(records)} launches compared; {differs} values differ")
sys.exit(1 if differs else 0)
EOF
