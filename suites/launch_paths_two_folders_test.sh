#!/usr/bin/env bash
# The kernel suite's launch_paths topic run from two folders (CTest's, the suite's build folder, and
# an empty temporary one) gives the same verdict: a source compiled at run time (NVRTC) is named as
# the program named it, not after the folder it ran from (RunTimeSourceName, source_paths.h), so its
# per-line baseline matches from anywhere. Skips (77) where the suite skips: no usable GPU.
#   launch_paths_two_folders_test.sh <suite program>
set -uo pipefail
suite="$1"
source "$(dirname "${BASH_SOURCE[0]}")/../framework/testing/ctest_gpu.sh" || exit 1
elsewhere="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-two-folders.XXXXXX")"
trap 'rm -rf "$elsewhere"' EXIT
results="$elsewhere/results"
status=()
for folder in "$(dirname "$suite")" "$elsewhere"; do
  (cd "$folder" && BANKCHECK_RESULTS_DIR="$results-$((${#status[@]}))" "$suite" --bankcheck_topic=launch_paths \
    >"$elsewhere/run.log" 2>&1)
  rc=$?
  ((rc == 77)) && { grep -m1 -i 'skip' "$elsewhere/run.log"; exit 77; }
  echo "launch_paths from $folder: exit $rc"
  ((rc == 0)) || { tail -40 "$elsewhere/run.log"; }
  status+=("$rc")
done
[[ "${status[*]}" == "0 0" ]] || { echo "FAILED: the verdicts differ by folder (${status[*]})"; exit 1; }
echo "passed: launch_paths passes from both folders"
