#!/usr/bin/env bash
# Times the `bankcheck` command line on inputs crafted to be slow (docs/security.md, "Linear
# work"), and prints each time; each should take seconds at most. No GPU needed.
#   benchmarks/hostile_inputs.sh [BANKCHECK]     (default: build/bin/bankcheck)
# Before the fixes: "[{},...]" of 320,000 objects 20 s, a 64 MiB results file about a day, a 4 MB
# source of `R""` lines 23.7 s. Exit status: 0 every command finished (each may refuse its input:
# that is an answer too); 1 one crashed or took more than 120 s.
set -euo pipefail

bankcheck="${1:-build/bin/bankcheck}"
[[ -x "$bankcheck" ]] || { echo "hostile_inputs.sh: no bankcheck at $bankcheck (build it, or name it)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys, os
work = sys.argv[1]
limit = 64 << 20
with open(os.path.join(work, "objects.json"), "w") as f:
    f.write("[" + ",".join(["{}"] * 320000) + "]")
# Results-shaped, every container within the element limit: one case whose messages are arrays
# of 150,000 empty objects, up to the size limit.
head = ('{"format":"bankcheck-results","version":1,"metadata":{"arch":"","device":"","driver":"",'
        '"cuda_runtime":"","cuda_driver":"","date":"","git_commit":""},"cases":{"t/a":{"description":"",'
        '"status":"passed","expected":{},"baseline":"not_compared","baseline_table":"","launches":[],'
        '"messages":[')
inner = "[" + ",".join(["{}"] * 150000) + "]"
parts = []
size = len(head) + 4
while size + len(inner) + 1 < limit:
    parts.append(inner)
    size += len(inner) + 1
with open(os.path.join(work, "results64.json"), "w") as f:
    f.write(head + ",".join(parts) + "]}}}")
# 100,000 cases within the limits, each with a long name.
cases = ",".join('"t/%s%06d":{"description":"","status":"passed","expected":{},"baseline":"not_compared",'
                 '"baseline_table":"","launches":[],"messages":[]}' % ("x" * 400, i) for i in range(100000))
with open(os.path.join(work, "cases.json"), "w") as f:
    f.write(head.split('"cases":')[0].replace('"arch":""', '"arch":"sm_90"') + '"cases":{' + cases + "}}")
with open(os.path.join(work, "raw.cu"), "w") as f:
    f.write('R""\n' * 1000000)
PY

status=0
# Prints the wall-clock and CPU (user + system) seconds of a command: on a busy machine the CPU
# time is the one to compare.
run() {
  local what="$1"
  shift
  local rc real user sys
  {
    TIMEFORMAT='%R %U %S'
    time { timeout 120 "$@" >/dev/null 2>"$work/err" && echo 0 >"$work/rc" || echo $? >"$work/rc"; }
  } 2>"$work/time"
  rc=$(<"$work/rc")
  read -r real user sys <"$work/time"
  printf '%-56s %8s s wall %6.2f s CPU  exit %s  %s\n' "$what" "$real" "$(awk "BEGIN{print $user + $sys}")" "$rc" \
    "$(head -c 90 "$work/err" | tr '\n' ' ')"
  if ((rc == 124 || rc > 128)); then status=1; fi
}
run "report: [{},{},...] of 320,000 objects ($(du -h "$work/objects.json" | cut -f1))" \
  "$bankcheck" report "$work/objects.json"
run "report: results-shaped 64 MiB of empty objects" "$bankcheck" report "$work/results64.json"
run "report: 100,000 cases with 400-byte names ($(du -h "$work/cases.json" | cut -f1))" \
  "$bankcheck" report "$work/cases.json"
run "update-baselines --case '*x*x*x*x*9': the same cases" \
  "$bankcheck" update-baselines "$work/cases.json" --baselines "$work" --case '*x*x*x*x*9' --dry-run
run "annotations: 4 MB of R\"\" lines" "$bankcheck" annotations "$work/raw.cu"
exit "$status"
