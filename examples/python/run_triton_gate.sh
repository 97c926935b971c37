#!/usr/bin/env bash
# run_triton_gate.sh BANKCHECK [JUNIT_XML]: the CTest test python/triton_gate (label gpu): pytest runs
# test_triton_gate.py with the python that has pytest, torch and Triton: `python3`, else
# $BANKCHECK_PYTHON. BANKCHECK is the bankcheck command to test (CMake passes its build's), which the
# pytest plugin of the sources (python/bankcheck) runs.
# Exit status: pytest's (0 passed, 1 failed), or 77 (CTest: skipped) when there is no such python or
# every test skipped (no usable GPU), the reason printed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 BANKCHECK [JUNIT_XML]" >&2; exit 2; }
export BANKCHECK=$1
junit=${2:-$(mktemp -d /tmp/triton_gate.XXXXXX)/junit.xml}

# skip REASON: CTest's skip, with the reason also in GoogleTest's words, which ci/test.sh lists at
# its end under the reason.
skip() {
  echo "skipped: $1"
  printf '%s: Skipped\n%s\n[  SKIPPED ] python/triton_gate (0 ms)\n' "${BASH_SOURCE[0]}" "$1"
  exit 77
}

python=""
tried=()
for candidate in python3 "${BANKCHECK_PYTHON:-}"; do
  [[ -n "$candidate" ]] || continue
  tried+=("$candidate")
  if "$candidate" -c 'import pytest, torch, triton' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
[[ -n "$python" ]] ||
  skip "no python3 with pytest, torch and triton (tried: ${tried[*]}; set BANKCHECK_PYTHON)"
versions=$("$python" -c 'import torch, triton; print("torch", torch.__version__, "triton",
                                                      triton.__version__)')
echo "python: $(command -v "$python") ($versions)"

# The GPU CTest allocated, as bankcheck's own GPU tests take it.
# shellcheck source=../../framework/testing/ctest_gpu.sh
source "$here/../../framework/testing/ctest_gpu.sh" || exit 1

status=0
PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -v -rs -p no:cacheprovider --junitxml="$junit" \
  "$here/test_triton_gate.py" || status=$?
((status == 0)) || exit "$status"
# pytest passes a run whose tests all skipped; CTest should say skipped.
all_skipped=$("$python" -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
tests = sum(int(s.get("tests", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(int(tests > 0 and skipped == tests))' "$junit") || exit 1
if [[ "$all_skipped" == 1 ]]; then
  reason=$("$python" -c '
import sys, xml.etree.ElementTree as ET
print(next((s.get("message", "") for s in ET.parse(sys.argv[1]).getroot().iter("skipped")), ""))' "$junit")
  skip "${reason:-every test skipped}"
fi
exit 0
