#!/usr/bin/env bash
# global_ideal_probe.sh BUILD_DIR OUT_DIR: what the GPU counts as the ideal sectors of global loads
# whose lanes share bytes, against the sector model (GlobalSectors, memory_sectors.h; its rule for
# shared bytes was fitted to CuPy's upfirdn kernels, docs/counters.md). Runs
# BUILD_DIR/benchmarks/bankcheck_global_ideal_probe under `bankcheck run` (every launch measured),
# leaves OUT_DIR/results.json and OUT_DIR/patterns.txt (each launch's width and lane indices), and
# prints, for each launch, the measured (sectors, ideal) of its one load beside
# `bankcheck predict --op ldg`'s, then "global ideal probe: N launches, E equal, D differ".
# Exit 0 when every launch equals the model, 1 when one differs or the run failed, 2 on a usage error.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 2; }
probe="$1/benchmarks/bankcheck_global_ideal_probe"
bankcheck="$1/bin/bankcheck"
[[ -x "$probe" && -x "$bankcheck" ]] || { echo "global_ideal_probe.sh: build $probe and $bankcheck first" >&2; exit 2; }
mkdir -p "$2"
out=$(cd "$2" && pwd)
"$bankcheck" run -o "$out/results.json" -- "$probe" "$out/patterns.txt"
python3 - "$out" "$bankcheck" <<'PY'
import json, os, re, subprocess, sys

out, bankcheck = sys.argv[1], sys.argv[2]
results = json.load(open(os.path.join(out, "results.json")))
# `bankcheck run` names a kernel's n-th case "<kernel>#<n>" (the first "<kernel>").
launches = {}
for name, case in results["cases"].items():
    match = re.fullmatch(r"(\w+?)(?:#(\d+))?", name)
    if not match or len(case["launches"]) != 1:
        sys.exit(f"unexpected case {name!r}")
    launches[(match.group(1), int(match.group(2) or 1))] = case["launches"][0]
seen, equal, differ = {}, 0, 0
for line in open(os.path.join(out, "patterns.txt")):
    bytes_, *indices = map(int, line.split())
    kernel = f"Load{bytes_}"
    seen[kernel] = seen.get(kernel, 0) + 1
    counts = launches[(kernel, seen[kernel])]["global_ld"]
    if counts["instructions"] != 1:
        sys.exit(f"{kernel} #{seen[kernel]}: {counts['instructions']} global loads, expected 1")
    addresses = ",".join("-" if i < 0 else str(i * bytes_) for i in indices)
    model = json.loads(subprocess.run([bankcheck, "predict", "--op", "ldg", "--bytes", str(bytes_), "--addresses",
                                       addresses, "--json"], check=True, capture_output=True, text=True).stdout)
    same = (counts["wavefronts"], counts["ideal"]) == (model["sectors"], model["ideal"])
    equal, differ = equal + same, differ + (not same)
    print(f"{'equal  ' if same else 'DIFFERS'} {bytes_:2d} bytes, lanes {' '.join(map(str, indices))}: measured "
          f"(sectors, ideal) ({counts['wavefronts']}, {counts['ideal']}), model ({model['sectors']}, {model['ideal']})")
print(f"global ideal probe: {equal + differ} launches, {equal} equal, {differ} differ")
sys.exit(1 if differ else 0)
PY
