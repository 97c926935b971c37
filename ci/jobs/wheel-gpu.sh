#!/usr/bin/env bash
# ci/jobs/wheel-gpu.sh WHEEL [OUT] [PYTHON]: the wheel, built elsewhere (ci/jobs/wheel.sh; a GPU machine may
# have no compiler or network), checked on a GPU with bankcheck's pytest plugin over the Triton
# example (examples/python/test_triton_kernels.py). PYTHON (default /opt/torch/.venv/bin/python3) is
# a Python with torch, Triton and pytest; the wheel is installed with --no-deps --no-index into a new
# venv that also sees PYTHON's packages. BANKCHECK_REQUIRE_GPU=1: no usable GPU fails every step.
#   1. bankcheck --version, and the CUPTI and runtime libraries the injection library resolves to
#   2. bankcheck run -- /bin/true                                             expected rc 0
#   3. record: pytest ... --bankcheck-baselines OUT/baselines --bankcheck-update   expected rc 0,
#      the four cases named after their tests
#   4. pass: the same without --bankcheck-update                               expected rc 0, all match
#   5. doctored: OUT/doctored, the baselines with one wavefront taken off one case  expected rc 1,
#      that case a regression and the others matches
#   6. the plugin's own GPU test (python/tests: each launch a case named by its test)  expected rc 0
# Prints each step's rc and a summary; exit status 0 when every step gave the expected rc.
# OUT (default build/wheel-gpu) keeps the results files and the recorded baselines: to commit them,
#   cp -r OUT/baselines/. examples/python/baselines/
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
wheel="${1:?usage: ci/jobs/wheel-gpu.sh WHEEL [OUT] [PYTHON]}"
out="$(mkdir -p "${2:-$root/build/wheel-gpu}" && cd "${2:-$root/build/wheel-gpu}" && pwd)"
python="${3:-/opt/torch/.venv/bin/python3}"
[[ -f "$wheel" ]] || { echo "ci/jobs/wheel-gpu.sh: no wheel $wheel" >&2; exit 2; }
export BANKCHECK_REQUIRE_GPU=1
rm -rf "$out/venv" "$out/baselines" "$out/doctored" "$out"/*.json
summary=()
failed=0
# step NAME EXPECTED COMMAND...: runs COMMAND, prints and records its rc.
step() {
  local name=$1 expected=$2 status=0
  shift 2
  echo "=== $name: $*"
  "$@" || status=$?
  echo "=== $name: rc=$status (expected $expected)"
  summary+=("$name rc=$status expected=$expected")
  ((status == expected)) || failed=1
}

# A venv made from a venv's python gets the base interpreter's packages with
# --system-site-packages, not that venv's: a .pth file adds PYTHON's site-packages (torch, Triton,
# pytest) after the new venv's own.
"$python" -m venv --system-site-packages "$out/venv" || exit 1
venv="$out/venv/bin"
site="$("$venv/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$python" -c 'import site; print("\n".join(site.getsitepackages()))' >"$site/torch-venv.pth"
"$venv/python" -m pip install --quiet --no-deps --no-index "$wheel" || exit 1
"$venv/python" -c 'import torch, triton, pytest; print("torch", torch.__version__, "triton", triton.__version__, "pytest", pytest.__version__)' ||
  { echo "ci/jobs/wheel-gpu.sh: $python lacks torch, Triton or pytest (above)" >&2; exit 1; }
export PATH="$venv:$PATH"
package="$("$venv/python" -c 'import bankcheck, pathlib; print(pathlib.Path(bankcheck.__file__).parent)')"

step version 0 bankcheck --version
# CUPTI and the runtime as a user's machine gives them (docs/python.md): the NVIDIA wheels beside the
# package (none in this new venv), /usr/local/cuda/lib64, the loader's cache. Where none has them,
# PYTHON's own NVIDIA wheels (a PyTorch for CUDA 13) through LD_LIBRARY_PATH, said here.
if ldd "$package/lib/libbankcheck_inject.so" | grep -q 'not found'; then
  nvidia="$("$python" -c 'import site; print("\n".join(site.getsitepackages()))' | sed 's|$|/nvidia/cu13/lib|' |
    while read -r folder; do [[ -e "$folder/libcupti.so.13" ]] && echo "$folder"; done | head -n 1)"
  [[ -n "$nvidia" ]] && export LD_LIBRARY_PATH="$nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" &&
    echo "ci/jobs/wheel-gpu.sh: CUPTI 13 not found as installed; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi
ldd "$package/lib/libbankcheck_inject.so" | grep -E 'cupti|cudart|not found'
step true 0 bankcheck run -o "$out/true.json" -- /bin/true

examples="$root/examples/python"
expected_cases='["test_triton_kernels.py/test_matmul[128x192x96]/matmul_kernel", "test_triton_kernels.py/test_matmul[256x256x256]/matmul_kernel", "test_triton_kernels.py/test_transpose[32]/transpose_kernel", "test_triton_kernels.py/test_transpose[64]/transpose_kernel"]'
# verdicts RESULTS: prints each case's verdict; fails unless the cases are the four expected.
verdicts() {
  "$venv/python" - "$1" "$expected_cases" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
for name in sorted(cases):
    print(f"  {name}: {cases[name]['baseline']}")
sys.exit(0 if sorted(cases) == json.loads(sys.argv[2]) else f"cases {sorted(cases)}, expected {sys.argv[2]}")
PY
}
plugin() { (cd "$examples" && "$venv/python" -m pytest -p no:cacheprovider -rs test_triton_kernels.py "$@"); }

step record 0 plugin --bankcheck-baselines "$out/baselines" --bankcheck-update --bankcheck-output "$out/record.json"
verdicts "$out/record.json" || failed=1
ls -l "$out"/baselines/*/
step pass 0 plugin --bankcheck-baselines "$out/baselines" --bankcheck-output "$out/pass.json"
verdicts "$out/pass.json" || failed=1

cp -r "$out/baselines" "$out/doctored"
worse="$("$venv/python" - "$out/doctored" <<'PY'
import json, pathlib, sys
# One wavefront fewer in the first case that moves shared memory: its measurement is a regression.
for path in sorted(pathlib.Path(sys.argv[1]).glob("*/test_triton_kernels.py.json")):
    recorded = json.loads(path.read_text())
    for name in sorted(recorded["cases"]):
        for launch in recorded["cases"][name]["launches"]:
            for key, block in launch.items():
                if key.startswith("shared_") and isinstance(block, dict) and block.get("wavefronts", 0) > 0:
                    block["wavefronts"] -= 1
                    if "ideal" in block:
                        if block["conflicts"] > 0:
                            block["conflicts"] -= 1
                        else:
                            block["ideal"] -= 1
                    path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
                    print(name)
                    sys.exit(0)
sys.exit("no recorded case moves shared memory: nothing to doctor")
PY
)" || failed=1
echo "doctored: $worse"
step doctored 1 plugin --bankcheck-baselines "$out/doctored" --bankcheck-output "$out/doctored.json"
verdicts "$out/doctored.json" || failed=1
"$venv/python" - "$out/doctored.json" "$worse" <<'PY' || failed=1
import json, sys
cases, worse = json.load(open(sys.argv[1]))["cases"], sys.argv[2]
wrong = {n: c["baseline"] for n, c in cases.items() if c["baseline"] != ("regression" if n == worse else "match")}
sys.exit(f"verdicts not as expected (only {worse} a regression): {wrong}" if wrong else 0)
PY

step plugin-gpu-test 0 env -u BANKCHECK "$venv/python" -m pytest -p no:cacheprovider -rs \
  "$root/python/tests/test_pytest_plugin.py" -k each_launch_of_a_test

echo "=== summary"
printf '  %s\n' "${summary[@]}"
((failed == 0)) && echo "ci/jobs/wheel-gpu.sh: every step as expected" || echo "ci/jobs/wheel-gpu.sh: FAILED (above)"
exit "$failed"
