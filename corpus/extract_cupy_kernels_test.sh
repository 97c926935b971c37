#!/usr/bin/env bash
# corpus/extract_cupy_kernels.py on a made-up site folder: a string that is a literal, a name of an
# earlier one, or a + of those is written unchanged (after its one-line header); a string that is
# anything else (a call, an f-string), a missing string or a missing module exits 1 naming it; and a
# second run leaves an unchanged file's time alone (no rebuild).
set -euo pipefail
script="$(dirname "${BASH_SOURCE[0]}")/extract_cupy_kernels.py"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-extract-cupy.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
failures=0
failed() {
  echo "FAILED: $1" >&2
  failures=$((failures + 1))
}

mkdir -p "$dir/site/cupyx/signal"
cat >"$dir/site/cupyx/signal/_k.py" <<'PY'
import cupy
PREAMBLE = r"""#include <a.h>
"""
KERNEL = PREAMBLE + r'''__global__ void k() {}
'''
CALLED = cupy.RawModule(code=KERNEL)
FORMATTED = f"{PREAMBLE}x"
def inner():
    HIDDEN = "not module level"
PY
out="$dir/out"
python3 "$script" "$dir/site" "$out" cupyx.signal._k:KERNEL cupyx.signal._k:PREAMBLE ||
  failed "extracting KERNEL and PREAMBLE exited $?"
expected=$'// cupyx.signal._k.KERNEL, extracted from '"$dir/site/cupyx/signal/_k.py"$' by corpus/extract_cupy_kernels.py\n#include <a.h>\n__global__ void k() {}'
[[ "$(cat "$out/cupyx.signal._k/KERNEL.cuh")" == "$expected" ]] ||
  failed "KERNEL.cuh is not the preamble + the kernel: $(cat "$out/cupyx.signal._k/KERNEL.cuh")"
[[ -f "$out/cupyx.signal._k/PREAMBLE.cuh" ]] || failed "PREAMBLE.cuh was not written"

touch -d '2001-01-01' "$out/cupyx.signal._k/KERNEL.cuh"
python3 "$script" "$dir/site" "$out" cupyx.signal._k:KERNEL || failed "a second run exited $?"
[[ "$(stat -c %Y "$out/cupyx.signal._k/KERNEL.cuh")" == "$(date -d '2001-01-01' +%s)" ]] ||
  failed "a second run rewrote an unchanged KERNEL.cuh"

for request in cupyx.signal._k:CALLED cupyx.signal._k:FORMATTED cupyx.signal._k:HIDDEN cupyx.signal._k:NONE; do
  status=0
  message="$(python3 "$script" "$dir/site" "$out" "$request" 2>&1)" || status=$?
  [[ $status -eq 1 && "$message" == *"has no module-level string ${request#*:}"* ]] ||
    failed "$request: exited $status, said: $message"
  [[ ! -e "$out/cupyx.signal._k/${request#*:}.cuh" ]] || failed "$request: a file was written"
done
status=0
message="$(python3 "$script" "$dir/site" "$out" cupyx.scipy.missing:K 2>&1)" || status=$?
[[ $status -eq 1 && "$message" == *"cupyx/scipy/missing.py not found"* ]] ||
  failed "a missing module: exited $status, said: $message"

((failures == 0)) || exit 1
echo "extract_cupy_kernels: all checks passed"
