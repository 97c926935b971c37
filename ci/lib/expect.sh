# Sourced by the ci/*_test.sh scripts: expect, which runs a command and checks its exit status and
# output, and expect_done, which ends the script with the count of failures.
# shellcheck shell=bash
failures=0

# expect <exit status> <text or ''> <command...>: the command must exit so, its output (stdout and
# stderr) holding the text; prints ok or FAILED with the output, naming the arguments' basenames.
expect() {
  local want="$1" text="$2" status=0 output
  shift 2
  output="$("$@" 2>&1)" || status=$?
  if ((status != want)) || [[ -n "$text" && "$output" != *"$text"* ]]; then
    echo "FAILED: ${*##*/}: expected exit $want and '$text', got exit $status:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  else
    echo "ok: ${*##*/}: exit $status"
  fi
}

# expect_done <script>: exits 1 when an expectation failed, else says all passed.
expect_done() {
  ((failures == 0)) || { echo "$1: $failures failed" >&2; exit 1; }
  echo "$1: all passed"
}
