# Sourced by .ci/run (after its `set` and `cd`): every command the sourcing script runs from then on
# is a stage, timed from its start to the next one's, and when the script exits it prints the
# seconds of each stage and the total, the stage that failed marked. A line added to .ci/run is a
# timed stage without more. ci/lib/stage-times_test.sh checks it.
# shellcheck shell=bash
bankcheck_stage_names=()
bankcheck_stage_seconds=()
bankcheck_stage_started=""
bankcheck_stages_started="${EPOCHREALTIME/./}"

# bankcheck_stage_tenths <start in microseconds>: the tenths of a second since then.
bankcheck_stage_tenths() { echo $(((${EPOCHREALTIME/./} - $1 + 50000) / 100000)); }

# The DEBUG trap, before each command: the running stage ends, the command's begins. Bash fires it
# once more before the EXIT trap, with the last command again: a command that repeats the running
# stage's is no new stage.
bankcheck_stage_next() {
  ((${#bankcheck_stage_names[@]} == 0)) || [[ "$1" != "${bankcheck_stage_names[-1]}" ]] || return 0
  if [[ -n "$bankcheck_stage_started" ]]; then
    bankcheck_stage_seconds+=("$(bankcheck_stage_tenths "$bankcheck_stage_started")")
  fi
  bankcheck_stage_names+=("$1")
  bankcheck_stage_started="${EPOCHREALTIME/./}"
}

# The EXIT trap: the table, then the script's own exit status.
bankcheck_stage_table() {
  local status=$? i tenths mark
  trap - DEBUG
  if [[ -n "$bankcheck_stage_started" ]]; then
    bankcheck_stage_seconds+=("$(bankcheck_stage_tenths "$bankcheck_stage_started")")
  fi
  echo
  echo "== Seconds per stage"
  for i in "${!bankcheck_stage_names[@]}"; do
    tenths="${bankcheck_stage_seconds[i]}" mark=""
    if ((status != 0 && i == ${#bankcheck_stage_names[@]} - 1)); then mark="  FAILED (exit $status)"; fi
    printf '%7d.%d  %s%s\n' $((tenths / 10)) $((tenths % 10)) "${bankcheck_stage_names[i]}" "$mark"
  done
  tenths="$(bankcheck_stage_tenths "$bankcheck_stages_started")"
  printf '%7d.%d  total\n' $((tenths / 10)) $((tenths % 10))
  return "$status"
}

trap bankcheck_stage_table EXIT
trap 'bankcheck_stage_next "$BASH_COMMAND"' DEBUG
