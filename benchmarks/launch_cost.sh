#!/usr/bin/env bash
# launch_cost.sh BUILD_DIR [LOG_DIR]: what a measured launch costs on real kernels (issue 35 item 4),
# in one run of a few minutes on a GPU.
#
# 1. Times single launches of BUILD_DIR/benchmarks/bankcheck_launch_cost (cuBLAS SGEMM and a 32x32
#    shared-memory transpose at SIZES, default 512,1024,2048,4096; 1 + REPEATS launches each, default
#    REPEATS 5; each launch from its call to the end of a synchronization):
#      plain         the program alone
#      bankcheck     `bankcheck run` (every launch patched, synchronized and read)
#      <setting>     `bankcheck run` with BANKCHECK_SASS_CONFIG=<setting>, for each of SETTINGS
#                    (default: granularity=sm, granularity=smsp, patching=eager, metrics=no-ideal,
#                    metrics=ld-st, granularity=smsp,metrics=ld-st)
#      measure-once  `bankcheck run --measure-once` (first launch of each size measured, the rest plain)
#      ncu           `ncu --metrics <the SASS metrics bankcheck reads>` (kind table columns 3-5)
#    and prints one table: the median of the later launches (ms) and its ratio to plain, and the first
#    launch's ms (patching happens there).
# 2. Counts: every setting's results next to the default's (every case, kind and field; "0 values
#    differ" or the rows that differ), and the default's and every setting's next to ncu's own metrics
#    on the same launches (`ncu --metrics <every metric of the kind table> --csv`, ncu_compare.py
#    --match launch-index --ideal).
# 3. PyTorch: benchmarks/torch_launches.py (LAUNCHES kernel launches, default 1000) plain, under
#    `bankcheck run` and under `bankcheck run --measure-once`: whole-process wall time and the
#    script's own loop time, each with its ratio to plain. Skipped, saying so, where PYTHON cannot
#    import torch.
# Exit 0 when everything ran (whatever the numbers), 1 when a run failed (its log's end printed), 2 on
# a usage error, a missing tool or no usable GPU; a setting that fails or runs over SETTING_TIMEOUT
# seconds (default 90) is said and left out. Logs go to LOG_DIR (default $OUT/launch-cost when OUT
# is set, else a new temporary folder). Environment: NCU, PYTHON (default /opt/torch/.venv/bin/python3
# where it exists, else python3), SIZES, REPEATS, SETTINGS (';'-separated), LAUNCHES, SETTING_TIMEOUT.
set -euo pipefail

die() { echo "launch_cost.sh: $*" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BUILD_DIR [LOG_DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
program="$build/benchmarks/bankcheck_launch_cost"
probe="$build/benchmarks/bankcheck_speed_probe"
cli="$build/bin/bankcheck"
for f in "$program" "$probe" "$cli"; do [[ -x "$f" ]] || die "$f not found: build first"; done
# shellcheck source=benchmarks/find_ncu.sh
source "$here/find_ncu.sh"  # sets ncu
command -v python3 >/dev/null || die "python3 is needed to compare counts"
if [[ -n "${2:-}" ]]; then log_dir=$2
elif [[ -n "${OUT:-}" ]]; then log_dir=$OUT/launch-cost
else log_dir=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-launch-cost.XXXXXX"); fi
mkdir -p "$log_dir"
log_dir=$(cd "$log_dir" && pwd)
sizes=${SIZES:-512,1024,2048,4096}
repeats=${REPEATS:-5}
launches=${LAUNCHES:-1000}
IFS=';' read -r -a settings <<<"${SETTINGS:-granularity=sm;granularity=smsp;patching=eager;metrics=no-ideal;metrics=ld-st;granularity=smsp,metrics=ld-st}"
python=${PYTHON:-}
[[ -z "$python" && -x /opt/torch/.venv/bin/python3 ]] && python=/opt/torch/.venv/bin/python3
python=${python:-python3}
unset BANKCHECK_SASS_CONFIG
echo "logs: $log_dir"

"$probe" --print-kinds >"$log_dir/kinds.tsv" || die "$probe --print-kinds failed"
sass_metrics=$(awk -F'\t' '{for (i = 3; i <= 5; i++) if ($i != "-") print $i}' "$log_dir/kinds.tsv" | sort -u | paste -sd, -)
all_metrics=$(awk -F'\t' '{for (i = 3; i <= 7; i++) if ($i != "-") print $i}' "$log_dir/kinds.tsv" | sort -u | paste -sd, -)

# run NAME COMMAND...: runs it, output in LOG_DIR/NAME.log; a failure ends the script.
run() {
  local name=$1 status=0
  shift
  "$@" >"$log_dir/$name.log" 2>&1 || status=$?
  if ((status != 0)); then
    echo "launch_cost.sh: $name ('$*') exited with $status; $log_dir/$name.log ends:" >&2
    tail -n 20 "$log_dir/$name.log" >&2
    ((status == 77)) && exit 2
    exit 1
  fi
}
args=(--repeats "$repeats" --sizes "$sizes")

run plain "$program" "${args[@]}"
run bankcheck "$cli" run -o "$log_dir/bankcheck.json" -- "$program" "${args[@]}"
names=(plain bankcheck)
for setting in "${settings[@]}"; do
  # An experiment may fail or take too long (eager patching patches every loaded function): said, and
  # left out of the tables, without ending the run.
  name="cfg-${setting//[^a-z0-9=-]/_}"
  status=0
  env BANKCHECK_SASS_CONFIG="$setting" timeout "${SETTING_TIMEOUT:-90}" "$cli" run -o "$log_dir/$name.json" -- \
    "$program" "${args[@]}" >"$log_dir/$name.log" 2>&1 || status=$?
  if ((status == 0)); then
    names+=("$name")
  else
    echo "setting $setting: exited with $status (124: over ${SETTING_TIMEOUT:-90} s); left out; $log_dir/$name.log ends:"
    tail -n 3 "$log_dir/$name.log"
  fi
done
run measure-once "$cli" run --measure-once -o "$log_dir/measure-once.json" -- "$program" "${args[@]}"
# shellcheck disable=SC2154 # ncu: find_ncu.sh
run ncu "$ncu" --metrics "$sass_metrics" "$program" "${args[@]}"
run ncu-counts "$ncu" --metrics "$all_metrics" --csv --page raw --print-units base "$program" "${args[@]}"
grep -q '==ERROR==' "$log_dir/ncu.log" "$log_dir/ncu-counts.log" && die "ncu reported errors; see $log_dir/ncu*.log"
names+=(measure-once ncu)

echo
echo "single launches, ms (median of the $repeats launches after the first; x: against plain; first: the first launch)"
python3 - "$log_dir" "${names[@]}" <<'EOF'
import sys
log_dir, names = sys.argv[1], sys.argv[2:]
times = {}
for name in names:
    for line in open(f"{log_dir}/{name}.log", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) == 5 and f[0] == "launch_cost":
            times[(name, f[1], int(f[2]))] = (float(f[3]), float(f[4]))
rows = sorted({(k, n) for (_, k, n) in times})
short = {name: name.replace("cfg-", "").replace("granularity=", "g=").replace("metrics=", "m=").replace("patching=", "p=")
         for name in names}
print(f"{'kernel':10} {'N':>5} " + " ".join(f"{short[n][:22]:>22}" for n in names))
for kernel, n in rows:
    plain = times.get(("plain", kernel, n), (0, 0))[1]
    cells = []
    for name in names:
        first, later = times.get((name, kernel, n), (float("nan"), float("nan")))
        ratio = later / plain if plain > 0 else float("nan")
        cells.append(f"{later:9.3f} {ratio:6.1f}x" + (f" {first:5.0f}" if name != "plain" else "      "))
    print(f"{kernel:10} {n:>5} " + " ".join(f"{c:>22}" for c in cells))
print("(each cell: later-launch median ms, its ratio to plain, the first launch's ms)")
EOF

echo
echo "counts: each setting against the default (bankcheck run, every launch)"
for name in "${names[@]}"; do
  [[ "$name" == cfg-* ]] || continue
  python3 - "$log_dir/bankcheck.json" "$log_dir/$name.json" "$name" <<'EOF'
import json, sys
a, b, name = json.load(open(sys.argv[1]))["cases"], json.load(open(sys.argv[2]))["cases"], sys.argv[3]
rows = []
for case in sorted(set(a) | set(b)):
    if case not in a or case not in b:
        rows.append(f"  {case}: only in {'the default' if case in a else name}")
        continue
    for i, (x, y) in enumerate(zip(a[case]["launches"], b[case]["launches"])):
        for kind in sorted({k for k in list(x) + list(y) if k.startswith("shared_")}):
            for field in ("instructions", "wavefronts", "ideal", "conflicts"):
                u, v = x.get(kind, {}).get(field, 0), y.get(kind, {}).get(field, 0)
                if u != v:
                    rows.append(f"  {case} {kind} {field}: default {u}, {name} {v}")
print(f"{name}: {len(rows)} values differ" + ("" if not rows else ":"))
for row in rows[:20]:
    print(row)
if len(rows) > 20:
    print(f"  ... {len(rows) - 20} more")
EOF
done

echo
echo "counts: against ncu's own metrics on the same launches (ncu_compare.py --match launch-index --ideal)"
for name in "${names[@]}"; do
  [[ "$name" == bankcheck || "$name" == cfg-* ]] || continue
  status=0
  python3 "$here/ncu_compare.py" --match launch-index --ideal "$log_dir/kinds.tsv" "$log_dir/$name.json" \
    "$log_dir/ncu-counts.log" >"$log_dir/compared-$name.txt" 2>&1 || status=$?
  differs=$(grep -c 'DIFFERS' "$log_dir/compared-$name.txt" || true)
  echo "$name: $differs values differ (exit $status; $log_dir/compared-$name.txt)"
  grep 'DIFFERS' "$log_dir/compared-$name.txt" | head -n 10 || true
done

echo
if "$python" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
  # torch_run NAME COMMAND...: runs it as `run` does; its wall seconds in LOG_DIR/NAME.seconds.
  torch_run() {
    local name=$1 start end
    shift
    start=$(date +%s.%N)
    run "$name" "$@"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f\n", e - s }' >"$log_dir/$name.seconds"
  }
  script="$here/torch_launches.py"
  "$python" "$script" "$launches" >/dev/null 2>&1 || true  # untimed: the machine's first-use costs
  torch_run torch-plain "$python" "$script" "$launches"
  torch_run torch-bankcheck "$cli" run -o "$log_dir/torch-bankcheck.json" -- "$python" "$script" "$launches"
  torch_run torch-measure-once "$cli" run --measure-once -o "$log_dir/torch-measure-once.json" -- \
    "$python" "$script" "$launches"
  t_plain=$(cat "$log_dir/torch-plain.seconds")
  t_all=$(cat "$log_dir/torch-bankcheck.seconds")
  t_once=$(cat "$log_dir/torch-measure-once.seconds")
  loop() { grep -Eo 'in [0-9.]+ ms' "$log_dir/$1.log" | grep -Eo '[0-9.]+' | tail -n 1; }
  summary() { grep -Eo '[0-9]+ launch\(es\) measured.*' "$log_dir/$1.log" | sed 's/; results:.*//' | tail -n 1; }
  echo "PyTorch, $launches launches (torch_launches.py): whole process s (x plain), the script's loop ms (x plain)"
  awk -v p="$t_plain" -v a="$t_all" -v o="$t_once" -v lp="$(loop torch-plain)" -v la="$(loop torch-bankcheck)" \
    -v lo="$(loop torch-measure-once)" 'BEGIN {
      printf "  plain                          %7.2f s          %9.1f ms\n", p, lp
      printf "  bankcheck run                  %7.2f s (%5.2fx) %9.1f ms (%6.2fx)\n", a, a / p, la, la / lp
      printf "  bankcheck run --measure-once   %7.2f s (%5.2fx) %9.1f ms (%6.2fx)\n", o, o / p, lo, lo / lp }'
  echo "  bankcheck run: $(summary torch-bankcheck)"
  echo "  --measure-once: $(summary torch-measure-once)"
else
  echo "PyTorch: skipped ($python cannot import torch with a GPU; set PYTHON)"
fi
echo "logs: $log_dir"
