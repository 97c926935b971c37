#!/usr/bin/env bash
# The Python wheel (pyproject.toml, docs/python.md) built, installed and checked as a user gets it:
#   1. `pip wheel .`: scikit-build-core runs CMake with -DBANKCHECK_PYTHON_WHEEL=ON, which builds the
#      `bankcheck` command and its run libraries only; CMake's build folder is kept in
#      $BUILD_DIR/wheel/build (a second run rebuilds only what changed), ccache used when present
#   2. the wheel's files: bankcheck/bin/bankcheck, bankcheck/lib/libbankcheck_inject.so and
#      libbankcheck_nvtx.so, the Python package, its version the project's; no CUDA library
#      (libcuda, libcupti, libcudart, libnvperf), and the injection library asks for the CUPTI and
#      runtime of the major version that the `cuda` extra installs
#   3. installed in a fresh venv with its `cuda` extra (NVIDIA's CUPTI and runtime wheels, which the
#      injection library must load from there) and pytest: `bankcheck --help`; `bankcheck
#      --version` says the project's version; `bankcheck run -- /bin/true` exits 77 without a GPU (0 with one); the
#      pytest plugin is registered (`pytest --help` lists --bankcheck-baselines)
#   4. the plugin's tests (python/tests) in that venv: the CPU tests pass, the GPU test skips with
#      its reason here (or runs, with torch and a GPU)
# Prints the wheel's size and files. Exit status: 0 when every check passes, 1 otherwise.
# Needs python3 with venv and pip, and PyPI (scikit-build-core and pytest, pinned; the cuda extra).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

die() {
  echo "ci/wheel.sh: error: $1" >&2
  exit 1
}
work="$BUILD_DIR/wheel"
rm -rf "$work/dist" "$work/venv"
mkdir -p "$work/dist"
version="$(sed -n 's/^project(bankcheck VERSION \([0-9.]*\).*/\1/p' "$BANKCHECK_ROOT/CMakeLists.txt")"
[[ -n "$version" ]] || die "no project(bankcheck VERSION ...) in CMakeLists.txt"

# 1. The wheel.
werror=OFF
[[ "${CI:-}" == "true" || "${BANKCHECK_WERROR:-}" == ON ]] && werror=ON
settings=(-C "build-dir=$work/build" -C "cmake.define.BANKCHECK_WERROR=$werror")
if command -v ccache >/dev/null; then
  settings+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
echo "ci/wheel.sh: building the wheel of bankcheck $version ($JOBS jobs)"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" python3 -m pip wheel --no-deps -w "$work/dist" "${settings[@]}" \
  "$BANKCHECK_ROOT" >"$work/pip-wheel.log" 2>&1 || { cat "$work/pip-wheel.log"; die "the wheel did not build (log above)"; }
wheels=("$work"/dist/bankcheck-*.whl)
if ((${#wheels[@]} != 1)) || [[ ! -f "${wheels[0]}" ]]; then die "pip wheel made no single bankcheck wheel in $work/dist"; fi
wheel="${wheels[0]}"
echo "ci/wheel.sh: built $(basename "$wheel") in $((SECONDS - start)) s, $(du -k "$wheel" | cut -f1) KiB"

# 2. What it holds.
python3 - "$wheel" "$version" "$BANKCHECK_ROOT/pyproject.toml" <<'PY'
import re, subprocess, sys, tempfile, zipfile
from pathlib import Path
wheel, version, pyproject = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).read_text()
problems = []
if not wheel.name.startswith(f"bankcheck-{version}-py3-none-"):
    problems.append(f"{wheel.name} is not bankcheck {version} for py3-none")
with zipfile.ZipFile(wheel) as archive:
    members = {info.filename: info for info in archive.infolist()}
    for info in sorted(members.values(), key=lambda info: info.filename):
        print(f"  {info.file_size:>9}  {info.filename}")
    required = ["bankcheck/bin/bankcheck", "bankcheck/lib/libbankcheck_inject.so", "bankcheck/lib/libbankcheck_nvtx.so",
                "bankcheck/__init__.py", "bankcheck/_command.py", "bankcheck/pytest_plugin.py"]
    problems += [f"no {name}" for name in required if name not in members]
    problems += [f"a CUDA library is bundled: {name}" for name in members
                 if re.search(r"/lib(cuda|cupti|cudart|nvperf|nvidia)[^/]*\.so", name)]
    entry_points = next((archive.read(n).decode() for n in members if n.endswith(".dist-info/entry_points.txt")), "")
    if "bankcheck = bankcheck.pytest_plugin" not in entry_points or "bankcheck = bankcheck._command:main" not in entry_points:
        problems.append(f"entry points (pytest11 plugin, bankcheck script) missing:\n{entry_points}")
    with tempfile.TemporaryDirectory() as folder:
        library = archive.extract("bankcheck/lib/libbankcheck_inject.so", folder)
        dynamic = subprocess.run(["readelf", "-d", library], capture_output=True, text=True, check=True).stdout
needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic)
runpath = re.findall(r"\(RUNPATH\).*\[(.*)\]", dynamic)
cupti = [n for n in needed if n.startswith("libcupti.so.")]
extra = re.search(r'"nvidia-cuda-cupti>=(\d+),<(\d+)"', pyproject)
if not cupti or not extra or cupti[0] != f"libcupti.so.{extra.group(1)}":
    problems.append(f"the injection library needs {cupti}, the `cuda` extra installs nvidia-cuda-cupti "
                    f"{extra.group(0) if extra else '(none)'}: make them the same major version")
elif not runpath or f"$ORIGIN/../../nvidia/cu{extra.group(1)}/lib" not in runpath[0].split(":"):
    problems.append(f"the injection library's RUNPATH {runpath} does not name the NVIDIA wheels' folder")
elif any(part.startswith("/") and part != "/usr/local/cuda/lib64" for part in runpath[0].split(":")):
    problems.append(f"the injection library's RUNPATH {runpath} names a folder of the build machine")
print(f"  libbankcheck_inject.so needs {', '.join(needed)}; RUNPATH {runpath[0] if runpath else '(none)'}")
for problem in problems:
    print(f"ci/wheel.sh: error: the wheel: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY

# 3. Installed in a fresh venv, as `pip install bankcheck` does.
python3 -m venv "$work/venv"
venv="$work/venv/bin"
# With the `cuda` extra: the injection library must take CUPTI and the runtime from NVIDIA's wheels in
# the venv before any toolkit of the machine (its RUNPATH's first folder).
"$venv/python" -m pip install --quiet --disable-pip-version-check "$wheel[cuda]" "pytest==8.4.2" ||
  die "pip install of the wheel failed"
package="$("$venv/python" -c 'import bankcheck, pathlib; print(pathlib.Path(bankcheck.__file__).parent)')"
# No empty or relative search path entry in the installed command and libraries (docs/security.md).
python3 "$BANKCHECK_ROOT/ci/check_rpath.py" "$package" || die "an empty or relative RPATH/RUNPATH entry (above)"
for library in libcupti.so libcudart.so; do
  resolved="$(ldd "$package/lib/libbankcheck_inject.so" | sed -n "s/^[[:space:]]*$library[.0-9]* => \([^ ]*\) .*/\1/p")"
  [[ "$(realpath -m "$resolved")" == "$(realpath "$package/..")"/nvidia/cu*/lib/$library* ]] ||
    die "libbankcheck_inject.so takes $library from '$resolved', not from the cuda extra's wheels in the venv"
  echo "ci/wheel.sh: $library from the cuda extra: $(realpath -m "$resolved")"
done
bankcheck="$venv/bankcheck"
[[ -x "$bankcheck" ]] || die "the venv has no bankcheck command ($bankcheck)"
# Captured before grep -q, which would stop reading early and fail the pipeline (pipefail).
help="$("$bankcheck" --help)"
grep -qw run <<<"$help" || die "bankcheck --help does not list run"
printed="$("$bankcheck" --version)"
[[ "$printed" == "bankcheck $version" ]] || die "bankcheck --version printed '$printed', not 'bankcheck $version'"
python_version="$("$venv/python" -c 'import bankcheck; print(bankcheck.__version__)')"
[[ "$python_version" == "$version" ]] || die "bankcheck.__version__ is '$python_version', not '$version'"
status=0
(cd "$work" && env -u BANKCHECK_REQUIRE_GPU PATH="$venv:$PATH" bankcheck run -o "$work/true.json" -- /bin/true) || status=$?
if ((status == 77)); then
  echo "ci/wheel.sh: bankcheck run -- /bin/true: exit status 77 (no usable GPU here: skipped)"
elif ((status == 0)) && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "ci/wheel.sh: bankcheck run -- /bin/true: exit status 0 (a GPU is present)"
else
  die "bankcheck run -- /bin/true exited with $status (77 without a GPU, 0 with one)"
fi
help="$("$venv/pytest" --help)"
grep -q -- '--bankcheck-baselines=DIR' <<<"$help" || die "pytest --help does not list --bankcheck-baselines: the plugin is not registered"
echo "ci/wheel.sh: bankcheck $version installed: --help, --version, run (77), the pytest plugin registered"

# 4. The plugin's own tests, from a folder outside the sources so that the installed package is the
# one imported.
(cd "$work" && env -u BANKCHECK PYTHONDONTWRITEBYTECODE=1 "$venv/python" -m pytest -p no:cacheprovider -rs -v \
  "$BANKCHECK_ROOT/python/tests") || die "the pytest plugin's tests failed (above)"
echo "ci/wheel.sh: the wheel is built, installed and checked"
