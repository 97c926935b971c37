#!/usr/bin/env bash
# lanes.sh LANE...: runs the lanes (scripts, each a list of .ci/run's jobs timed stage by stage with
# ci/lib/stage-times.sh) at the same time, and exits 0 when every lane passed, else with the first
# failed lane's exit status, after all have ended. Why: most jobs after the build spend much of their
# time on one core or none (configuring, pip, pytest, the fuzzer's one process, a root filesystem's
# files), so two lanes fill the machine's cores where one after the other would leave one idle. Each
# lane's output goes to a log, printed whole as the lane ends (the two never interleave), under a
# heading with its exit status and seconds. Jobs that install from the same build folder, or whose
# results another reads, belong in one lane.
set -uo pipefail
(($# > 0)) || { echo "usage: ci/lib/lanes.sh LANE..." >&2; exit 2; }
logs="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-lanes.XXXXXX")" || exit 2
trap 'rm -rf "$logs"' EXIT
declare -A lane_of=() started_at=()
for lane in "$@"; do
  [[ -x "$lane" ]] || { echo "ci/lib/lanes.sh: $lane is not an executable script" >&2; exit 2; }
done
index=0
for lane in "$@"; do
  "$lane" >"$logs/$index.log" 2>&1 &
  lane_of[$!]="$index:$lane"
  started_at[$!]=$SECONDS
  index=$((index + 1))
done
status=0
while ((${#lane_of[@]} > 0)); do
  finished=""
  wait -n -p finished "${!lane_of[@]}"
  lane_status=$?
  entry="${lane_of[$finished]}"
  unset "lane_of[$finished]"
  echo
  echo "==== Lane ${entry#*:}: exit $lane_status after $((SECONDS - started_at[$finished])) s"
  cat "$logs/${entry%%:*}.log"
  ((lane_status == 0 || status != 0)) || status=$lane_status
done
exit "$status"
