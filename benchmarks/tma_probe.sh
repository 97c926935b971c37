#!/usr/bin/env bash
# tma_probe.sh BUILD_DIR [LOG_DIR]: the sector model's rule for TMA boxes and bulk copies
# (TensorBoxSectors, CopyRunSectors in bankcheck/core/memory_sectors.h) against the GPU. Runs
# bankcheck_tma_probe twice: under a bankcheck range-profiler session ("range": the global_tma_ld and
# global_tma_st kinds' sectors) and under Nsight Compute ("plain", ncu's own TMA sector metrics, the
# oracle); prints per launch the prediction, both measurements and "ok" or "DIFFERS" (a prediction
# the rule leaves undecided is shown as such, not compared). Boxes after the comment "Boxes the rule
# was not fitted to" in tma_probe.cu check the rule on launches it was not fitted to.
# Exit 0 when every decided prediction equals both measurements, 1 when one differs, 2 on an error.
# Environment: NCU (find_ncu.sh).
set -euo pipefail
die() { echo "tma_probe.sh: $*" >&2; exit 2; }
[[ $# -ge 1 ]] || die "usage: $0 BUILD_DIR [LOG_DIR]"
probe="$1/benchmarks/bankcheck_tma_probe"
[[ -x "$probe" ]] || die "$probe not found: build first"
source "$(dirname "${BASH_SOURCE[0]}")/find_ncu.sh"
log_dir="${2:-$(mktemp -d /tmp/tma_probe.XXXXXX)}"
mkdir -p "$log_dir"
echo "logs: $log_dir"
ld=l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum
st=l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum
"$probe" range >"$log_dir/range.txt" 2>&1 || die "the range-profiler run failed (log: $log_dir/range.txt)"
"$ncu" --csv --page raw --print-units base --metrics "$ld,$st" "$probe" plain >"$log_dir/ncu.csv" 2>&1 ||
  die "the ncu run failed (log: $log_dir/ncu.csv)"
python3 - "$log_dir/range.txt" "$log_dir/ncu.csv" "$ld" "$st" <<'PY'
import csv
import sys

range_txt, ncu_csv, ld, st = sys.argv[1:]
order, predict, measured, store, failed = [], {}, {}, {}, set()
for line in open(range_txt):
    words = line.split()
    if len(words) < 3:
        continue
    name = words[0]
    if words[1] == "box":
        store[name] = words[-1] == "store"
    elif words[1] == "predict":
        order.append(name)
        predict[name] = " ".join(words[2:])
        store.setdefault(name, "store" in name)
    elif words[1] == "error":
        failed.add(name)
    elif words[1] == "kind" and words[2] in ("global_tma_ld", "global_tma_st") and words[3] == "instructions":
        measured[(name, words[2])] = int(words[6])
rows = list(csv.reader(line for line in open(ncu_csv) if line.startswith('"')))
header, launches = rows[0], [r for r in rows[1:] if r and r[0].isdigit()]
col = {name: header.index(name) for name in (ld, st)}
if len(launches) < len(order):
    sys.exit(f"tma_probe.sh: ncu reported {len(launches)} launches, the probe has {len(order)}")
differs = 0
print(f"{'launch':32} {'predicted':>10} {'bankcheck':>10} {'ncu':>10}")
for i, name in enumerate(order):
    kind, metric = ("global_tma_st", st) if store[name] else ("global_tma_ld", ld)
    ours = measured.get((name, kind), 0)
    theirs = int(float(launches[i][col[metric]].replace(",", "")))
    want = predict[name]
    if name in failed:
        verdict = "DIFFERS (the range-profiler run failed: range.txt)"
        differs += 1
    elif not want.isdigit():
        verdict = "undecided"
    else:
        verdict = "ok" if int(want) == ours == theirs else "DIFFERS"
        differs += verdict != "ok"
    print(f"{name:32} {want:>10} {ours:>10} {theirs:>10} {verdict}")
print(f"tma_probe.sh: {len(order)} launches, {differs} differ")
sys.exit(1 if differs else 0)
PY
