#!/usr/bin/env bash
# triton_device_check.sh BUILD_DIR [PYTEST_ARGS...]: the pytest plugin's CPU mode against its GPU mode
# (issue 57, docs/python.md "The device check"), on a GPU machine. The Triton tests of
# examples/python (PYTEST_ARGS, default test_triton_tutorials.py test_triton_kernels.py) run by the
# plugin of the sources (python/bankcheck, with BUILD_DIR's bin/bankcheck and lib/ libraries) twice:
#   1. GPU mode: torch CUDA tensors, each launch measured through CUPTI under `bankcheck run`
#      (BANKCHECK_REQUIRE_GPU=1: no usable GPU is an error here, never CPU mode), the counts recorded
#      as baselines into LOG_DIR/gpu-baselines (--bankcheck-update), each test's outputs saved into
#      LOG_DIR/outputs/gpu (BANKCHECK_OUTPUTS_DIR, examples/python/conftest.py);
#   2. CPU mode (--bankcheck-cpu, the GPU hidden: CUDA_VISIBLE_DEVICES=): numpy arrays and torch CPU
#      tensors, each launch compiled by Triton for sm_90 and run in the emulator
#      (BUILD_DIR/lib/libbankcheck_emulate_c.so), checked by `bankcheck run --emulated` against the
#      baselines the GPU just recorded; outputs into LOG_DIR/outputs/cpu.
# Each session compiles with a Triton cache of its own (LOG_DIR/triton-cache-{gpu,cpu}, new), so
# that CPU mode's compilation is checked too. Then benchmarks/triton_device_compare.py prints
#   - the committed baselines (examples/python/baselines: CPU mode's first baselines of the
#     tutorials, a GPU's of test_triton_kernels.py) against the GPU's, case by case: printed, not in
#     the exit status (they hold the counts of the Triton they were recorded with);
#   - each output array, GPU against CPU, bit for bit, where CPU mode computed it (else "not
#     compared" with the reason: the emulator does not compute MUFU's results, a test skipped);
#   - each launch and kind, equal or DIFFERS (or not compared: a kind a side did not count), each
#     undecided launch with its reason, and last
#       decided N, equal E, differ D; undecided K
# A decided count that differs from the GPU's is a bug of the emulator or of CPU mode, never a
# tolerance. Exit status: 0 when every decided launch and every compared output is equal, 1 when
# one differs, 2 on an error (usage, a missing build file or package, no sm_90 GPU, a session that
# wrote no results; a session that exited other than 0 or 1, after the comparison of what ran), said
# in one line `triton_device_check.sh: error: ...` naming its log. Each session took 12-35 s on the
# 2-core CPU machine (CPU mode, tutorials only; its GPU half faked there).
# Environment: PYTHON (default /opt/torch/.venv/bin/python3 where it exists, else python3): a Python
# with torch for CUDA, Triton, numpy and pytest; LOG_DIR (default a new temporary folder): both
# sessions' logs (gpu.log, cpu.log), results files (gpu-run.json, cpu-run.json), JUnit files, the
# GPU's baselines, the outputs and compare.log.
#   benchmarks/triton_device_check.sh /work/main/build
#   LOG_DIR=$OUT/device-check benchmarks/triton_device_check.sh build test_triton_tutorials.py -k transpose
set -uo pipefail

name=triton_device_check.sh
die() { echo "$name: error: $*" >&2; exit 2; }
[[ $# -ge 1 && "$1" != -h && "$1" != --help ]] || {
  echo "usage: $0 BUILD_DIR [PYTEST_ARGS...]   (PYTHON, LOG_DIR: see the header)" >&2
  exit 2
}
build="$(cd "$1" 2>/dev/null && pwd)" || die "no build folder $1"
shift
tests=("$@")
((${#tests[@]})) || tests=(test_triton_tutorials.py test_triton_kernels.py)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
examples="$root/examples/python"
compare="$root/benchmarks/triton_device_compare.py"

bankcheck="$build/bin/bankcheck"
library="$build/lib/libbankcheck_emulate_c.so"
injection="$build/lib/libbankcheck_inject.so"
for built in "$bankcheck" "$library" "$injection" "$build/lib/libbankcheck_nvtx.so"; do
  [[ -e "$built" ]] || die "$built is not built (cmake --build $build --target bankcheck bankcheck_emulate_c)"
done
python="${PYTHON:-}"
[[ -z "$python" && -x /opt/torch/.venv/bin/python3 ]] && python=/opt/torch/.venv/bin/python3
python="${python:-python3}"
command -v "$python" >/dev/null || die "no Python $python (set PYTHON)"

log_dir="${LOG_DIR:-$(mktemp -d /tmp/triton_device_check.XXXXXX)}"
mkdir -p "$log_dir" || die "cannot make LOG_DIR $log_dir"
log_dir="$(cd "$log_dir" && pwd)"
rm -rf "$log_dir"/gpu-baselines "$log_dir"/outputs "$log_dir"/triton-cache-* "$log_dir"/*-run.json \
  "$log_dir"/*-junit.xml
echo "logs: $log_dir"

# The Python: its packages, and a GPU of the architecture CPU mode emulates.
"$python" - >"$log_dir/python.log" 2>&1 <<'PY' || die "$python cannot run the check: $(tail -n 1 "$log_dir/python.log")"
import importlib.util, sys
missing = [m for m in ("torch", "triton", "numpy", "pytest") if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"it lacks {', '.join(missing)} (PYTHON names a Python with torch for CUDA, Triton, numpy and pytest)")
import numpy, pytest, torch, triton
print(f"python {sys.version.split()[0]}, torch {torch.__version__}, triton {triton.__version__}, "
      f"numpy {numpy.__version__}, pytest {pytest.__version__}")
if not torch.cuda.is_available():
    sys.exit("torch sees no CUDA GPU: GPU mode cannot run here")
capability = torch.cuda.get_device_capability()
print(f"GPU: {torch.cuda.get_device_name()}, compute capability {capability[0]}.{capability[1]}")
if capability != (9, 0):
    sys.exit(f"the GPU is sm_{capability[0]}{capability[1]}: CPU mode emulates sm_90, so the counts cannot compare")
PY
cat "$log_dir/python.log"

# CUPTI and the CUDA runtime for the injection library, as ci/jobs/wheel-gpu.sh finds them: where the
# loader does not (LD_LIBRARY_PATH, the toolkit, ldconfig), PYTHON's NVIDIA wheels (a PyTorch for
# CUDA 13 brings them).
if ldd "$injection" | grep -q 'not found'; then
  nvidia="$("$python" -c 'import site; print("\n".join(site.getsitepackages()))' | sed 's|$|/nvidia/cu13/lib|' |
    while read -r folder; do [[ -e "$folder/libcupti.so.13" ]] && echo "$folder"; done | head -n 1)"
  [[ -n "$nvidia" ]] ||
    die "$injection: $(ldd "$injection" | grep 'not found' | tr -s ' \t\n' ' ')(set LD_LIBRARY_PATH)"
  export LD_LIBRARY_PATH="$nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "CUPTI 13 from $nvidia (LD_LIBRARY_PATH)"
fi

# The plugin of the sources only (not one a bankcheck wheel in PYTHON registers), with this build.
export BANKCHECK="$bankcheck" BANKCHECK_EMULATE_LIBRARY="$library" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
unset BANKCHECK_PYTEST_CHILD

# session MODE ARGS...: pytest with the plugin over the tests in examples/python (the rootdir of the
# cases' names), its JUnit file, results and log in LOG_DIR; prints its exit status. A status other
# than 0 or 1 (a failing test or case) is pytest's or bankcheck's error (a module that does not
# import, a usage error): the comparison is still made and printed, and the check then exits 2.
incomplete=()
session() {
  local mode=$1 status=0
  shift
  (cd "$examples" && BANKCHECK_OUTPUTS_DIR="$log_dir/outputs/$mode" TRITON_CACHE_DIR="$log_dir/triton-cache-$mode" \
    "$python" -m pytest -p bankcheck.pytest_plugin -p no:cacheprovider -v -rs "${tests[@]}" \
    --junitxml "$log_dir/$mode-junit.xml" --bankcheck-output "$log_dir/$mode-run.json" "$@") \
    >"$log_dir/$mode.log" 2>&1 || status=$?
  echo "$mode session: exit status $status ($log_dir/$mode.log); $(grep -E '^=+ .*(passed|failed|skipped|error)' \
    "$log_dir/$mode.log" | tail -n 1 | tr -d '=' | sed 's/^ *//')"
  ((status <= 1)) || incomplete+=("the $mode session exited with $status ($log_dir/$mode.log)")
}

# check_results MODE DEVICE_PATTERN: the session wrote results of at least one launch, of sm_90, on
# the device it should have run on; else an error naming why, the log's last lines and the log.
check_results() {
  local found status=0
  found=$("$python" - "$log_dir/$1-run.json" "$2" 2>&1 <<'PY'
import json, re, sys
try:
    results = json.load(open(sys.argv[1]))
except (OSError, ValueError) as error:
    sys.exit(f"no results ({error})")
device, arch = results.get("metadata", {}).get("device", ""), results.get("metadata", {}).get("arch", "")
if not re.search(sys.argv[2], device) or arch != "sm_90":
    sys.exit(f"its results are of '{device}' ({arch}), not as expected")
if not results.get("cases"):
    sys.exit("its results hold no launch")
print(f"  {len(results['cases'])} cases on {device} ({arch})")
PY
  ) || status=$?
  ((status == 0)) ||
    die "the $1 session: $found; its log ends: $(tail -n 3 "$log_dir/$1.log" | tr '\n' ' ')($log_dir/$1.log)"
  echo "$found"
}

# GPU mode only: without a usable GPU `bankcheck run` fails rather than the plugin turning to CPU mode.
BANKCHECK_REQUIRE_GPU=1 session gpu --bankcheck-baselines "$log_dir/gpu-baselines" --bankcheck-update < /dev/null
check_results gpu '^(?!bankcheck emulated)'
# CPU mode without the GPU: what it computes owes nothing to a device.
CUDA_VISIBLE_DEVICES="" session cpu --bankcheck-cpu --bankcheck-baselines "$log_dir/gpu-baselines" < /dev/null
check_results cpu '^bankcheck emulated sm_90$'

status=0
"$python" "$compare" "$log_dir/gpu-run.json" "$log_dir/cpu-run.json" --cpu-junit "$log_dir/cpu-junit.xml" \
  --outputs "$log_dir/outputs/gpu" "$log_dir/outputs/cpu" --committed "$examples/baselines" "$log_dir/gpu-baselines" \
  >"$log_dir/compare.log" 2>&1 || status=$?
cat "$log_dir/compare.log"
((status <= 1)) || die "the comparison failed (exit status $status, $log_dir/compare.log)"
((${#incomplete[@]} == 0)) || die "the comparison above is of what ran: ${incomplete[*]}"
exit "$status"
