#!/usr/bin/env bash
# The Python wheel and sdist (pyproject.toml, docs/python.md) built, checked as the package index
# checks them, installed and checked as a user gets them:
#   1. `pip wheel --no-build-isolation .` with the tools' venv: scikit-build-core runs CMake with -DBANKCHECK_PYTHON_WHEEL=ON, which builds the
#      `bankcheck` command and its run libraries only; CMake's build folder is kept in
#      $BUILD_DIR/wheel/build (a second run rebuilds only what changed), ccache used when present
#      (ci/lib/common.sh).
#      Then `auditwheel repair` gives it the manylinux tag the index requires (the oldest the
#      build machine's glibc and libstdc++ allow: manylinux_2_34 on Debian 12), bundling nothing
#      (CUDA's libraries excluded: the `cuda` extra's wheels, the toolkit or the driver provide
#      them), and `auditwheel show` must report a manylinux tag no newer than 2_34; the sdist is
#      built (pypa/build, with pyproject's scikit-build-core)
#   2. `twine check --strict` on both; their long description (docs/python.md, its links made
#      absolute against $BANKCHECK_REPOSITORY_URL, default https://github.com/example/bankcheck
#      for this check) rendered as the index renders it, with no relative link left
#   3. the wheel's files: bankcheck/bin/bankcheck, bankcheck/lib/libbankcheck_inject.so,
#      libbankcheck_nvtx.so and libbankcheck_emulate_c.so (bankcheck.emulator's), the Python package, its version the project's; no CUDA library
#      (libcuda, libcupti, libcudart, libnvperf) nor any other bundled one, and the injection
#      library asks for the CUPTI and runtime of the major version that the `cuda` extra installs
#   4. installed in a fresh venv with its `cuda` extra (NVIDIA's CUPTI and runtime wheels, which the
#      injection library must load from there) and pytest: `bankcheck --help`; `bankcheck
#      --version` says the project's version; `bankcheck run -- /bin/true` exits 77 without a GPU (0 with one); the
#      pytest plugin is registered (`pytest --help` lists --bankcheck-baselines)
#   5. the plugin's tests (python/tests) in that venv: the CPU tests pass (among them: without the
#      CUDA libraries the session skips naming `bankcheck[cuda]`; the re-run imports no module of
#      the current folder), the GPU test skips with its reason here (or runs, with torch and a GPU)
#   6. the same tests again on the oldest pytest the plugin declares (ci/requirements/wheel-test-oldest-requirements.txt)
# Prints the wheel's size and files.
#   ci/jobs/wheel.sh              CI (.ci/run)
#   ci/jobs/wheel.sh --out DIR    release.yml: also copies the checked wheel and sdist into DIR (needs
#                            BANKCHECK_REPOSITORY_URL, the repository the index page links to)
# Exit status: 0 when every check passes, 1 otherwise, 2 for a usage error.
# Needs python3 (3.10 or newer: auditwheel's) with venv and pip, and PyPI: everything it installs is
# pinned with every dependency and each file's SHA-256 (pip --require-hashes --only-binary :all:):
# the tools from ci/requirements/wheel-requirements.txt (the wheel is built with their scikit-build-core, without
# build isolation, which would install the backend and its dependencies unpinned), the test venv's
# pytest and the cuda extra's wheels from ci/requirements/wheel-test-requirements.txt.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

die() {
  echo "ci/jobs/wheel.sh: error: $1" >&2
  exit "${2:-1}"
}
out=""
while (($#)); do
  case "$1" in
    --out) (($# >= 2)) || die "--out needs a folder (usage: ci/jobs/wheel.sh [--out DIR])" 2; out="$2"; shift 2 ;;
    *) die "unknown argument '$1' (usage: ci/jobs/wheel.sh [--out DIR])" 2 ;;
  esac
done
if [[ -n "$out" && -z "${BANKCHECK_REPOSITORY_URL:-}" ]]; then
  die "--out: set BANKCHECK_REPOSITORY_URL to the repository the index page links to (https://github.com/<owner>/bankcheck)" 2
fi
export BANKCHECK_REPOSITORY_URL="${BANKCHECK_REPOSITORY_URL:-https://github.com/example/bankcheck}"
work="$BUILD_DIR/wheel"
rm -rf "$work/dist" "$work/raw" "$work/venv" "$work/venv-oldest"
mkdir -p "$work/dist" "$work/raw"

# The packaging tools, hash-locked (ci/requirements/wheel-requirements.txt), in a venv of their own kept between
# runs (remade when the file changes). Its scikit-build-core must be the version pyproject.toml's
# build-system requires (what a user's `pip install` of the sdist builds with).
requirements="$BANKCHECK_ROOT/ci/requirements/wheel-requirements.txt"
backend="$(sed -n 's/^requires = \["\(scikit-build-core==[0-9.]*\)"\]$/\1/p' "$BANKCHECK_ROOT/pyproject.toml")"
[[ -n "$backend" ]] || die "pyproject.toml's build-system does not require one pinned scikit-build-core"
grep -qxF "$backend \\" "$requirements" ||
  die "ci/requirements/wheel-requirements.txt does not pin $backend (pyproject.toml's build-system): remake it (its header says how)"
locked() {  # pip install, every file by its hash, no source distribution
  "$1" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: -r "$2"
}
tools="$work/tools"
if [[ "$(cat "$tools/pins" 2>/dev/null)" != "$(sha256sum <"$requirements")" ]]; then
  start=$SECONDS
  rm -rf "$tools"
  python3 -m venv "$tools"
  locked "$tools/bin/python" "$requirements" || die "could not install the packaging tools ($requirements)"
  sha256sum <"$requirements" >"$tools/pins"
  echo "ci/jobs/wheel.sh: packaging tools installed in $((SECONDS - start)) s from ci/requirements/wheel-requirements.txt" \
    "($("$tools/bin/python" -m pip list --format=freeze 2>/dev/null | wc -l) packages)"
fi
version="$(sed -n 's/^project(bankcheck VERSION \([0-9.]*\).*/\1/p' "$BANKCHECK_ROOT/CMakeLists.txt")"
[[ -n "$version" ]] || die "no project(bankcheck VERSION ...) in CMakeLists.txt"

# 1. The wheel.
werror=OFF
[[ "${CI:-}" == "true" || "${BANKCHECK_WERROR:-}" == ON ]] && werror=ON
settings=(-C "build-dir=$work/build" -C "cmake.define.BANKCHECK_WERROR=$werror")
echo "ci/jobs/wheel.sh: building the wheel of bankcheck $version ($JOBS jobs)"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "$tools/bin/python" -m pip wheel --no-deps --no-build-isolation -w "$work/raw" "${settings[@]}" \
  "$BANKCHECK_ROOT" >"$work/pip-wheel.log" 2>&1 || { cat "$work/pip-wheel.log"; die "the wheel did not build (log above)"; }
wheels=("$work"/raw/bankcheck-*.whl)
if ((${#wheels[@]} != 1)) || [[ ! -f "${wheels[0]}" ]]; then die "pip wheel made no single bankcheck wheel in $work/raw"; fi
echo "ci/jobs/wheel.sh: built $(basename "${wheels[0]}") in $((SECONDS - start)) s, $(du -k "${wheels[0]}" | cut -f1) KiB"

# The manylinux tag. CUDA's libraries are never bundled: the driver is the machine's, CUPTI and the
# runtime come from the `cuda` extra or a toolkit (two copies of CUPTI in one process, ours and
# PyTorch's, would not work).
start=$SECONDS
cuda_libraries=('libcuda.so.*' 'libcupti.so.*' 'libcudart.so.*' 'libnvperf*' 'libnvidia-ml.so.*')
excluded=()
for library in "${cuda_libraries[@]}"; do excluded+=(--exclude "$library"); done
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$work/dist" "${excluded[@]}" "${wheels[0]}" \
  >"$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log"; die "auditwheel repair failed (log above)"; }
wheels=("$work"/dist/bankcheck-*.whl)
if ((${#wheels[@]} != 1)) || [[ ! -f "${wheels[0]}" ]]; then die "auditwheel repair made no single wheel in $work/dist"; fi
wheel="${wheels[0]}"
# auditwheel show: the symbol versions the wheel needs allow the manylinux tag it carries, at most
# 2_34, and the only libraries outside that policy are CUDA's, excluded above. (Its overall tag stays
# linux_x86_64 for those: the index goes by the file's tag.)
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" show --json "$wheel" >"$work/auditwheel-show.json" 2>>"$work/auditwheel.log" ||
  { cat "$work/auditwheel.log"; die "auditwheel show failed (log above)"; }
tag="$(python3 - "$work/auditwheel-show.json" "$(basename "$wheel")" "${cuda_libraries[@]}" <<'PY'
import fnmatch, json, re, sys
shown, wheel, cuda_libraries = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
tag = shown.get("sym_tag", "")
match = re.fullmatch(r"manylinux_2_(\d+)_x86_64", tag)
problems = []
if not match:
    problems.append(f"auditwheel show reports no manylinux tag for its symbol versions: {tag!r}")
elif int(match.group(1)) > 34:
    problems.append(f"it needs glibc 2.{match.group(1)} ({tag}); the index's users need at most 2.34: build on an older system")
if not wheel.endswith(f"-{tag}.whl"):
    problems.append(f"it is not tagged {tag}, which auditwheel show reports")
others = [name for name in shown.get("external_libs", {})
          if not any(fnmatch.fnmatch(name, pattern) for pattern in cuda_libraries)]
if others:
    problems.append(f"it needs libraries outside the manylinux policy other than CUDA's: {others}")
for problem in problems:
    print(f"ci/jobs/wheel.sh: error: {wheel}: {problem}", file=sys.stderr)
print(tag)
sys.exit(1 if problems else 0)
PY
)" || die "auditwheel show: the wheel's tag is wrong (above; $work/auditwheel-show.json)"
echo "ci/jobs/wheel.sh: $(basename "$wheel"): auditwheel show: $tag ($((SECONDS - start)) s)"

# The sdist, built with the backend pyproject.toml names (installed in the tools' venv).
start=$SECONDS
"$tools/bin/python" -m build --sdist --no-isolation --outdir "$work/dist" "$BANKCHECK_ROOT" >"$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log"; die "the sdist did not build (log above)"; }
sdists=("$work"/dist/bankcheck-*.tar.gz)
if ((${#sdists[@]} != 1)) || [[ ! -f "${sdists[0]}" ]]; then die "no single sdist in $work/dist"; fi
sdist="${sdists[0]}"
echo "ci/jobs/wheel.sh: built $(basename "$sdist") in $((SECONDS - start)) s, $(du -k "$sdist" | cut -f1) KiB"

# 2. As the index checks them: twine, and the long description's links as the index page shows them.
"$tools/bin/twine" check --strict "$wheel" "$sdist" || die "twine check failed (above)"
"$tools/bin/python" - "$wheel" "$sdist" "$BANKCHECK_REPOSITORY_URL" <<'PY' || die "the long description has links that the index page cannot follow (above)"
import email.parser, html.parser, re, sys, tarfile, zipfile
import readme_renderer.markdown
wheel, sdist, repository = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive:
    metadata = {"wheel": archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA")))}
with tarfile.open(sdist) as archive:
    metadata["sdist"] = archive.extractfile(next(m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"))).read()

class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []
    def handle_starttag(self, tag, attributes):
        self.targets += [value for name, value in attributes if name in ("href", "src") and value is not None]

failed = False
for kind, data in metadata.items():
    message = email.parser.BytesParser().parsebytes(data)
    description = message.get_payload() or message.get("Description", "")
    content_type = message.get("Description-Content-Type", "")
    links = Links()
    links.feed(readme_renderer.markdown.render(description, variant="GFM") or "")
    relative = [target for target in links.targets if not re.match(r"^(https?:|mailto:|#)", target)]
    ours = [target for target in links.targets if target.startswith(repository + "/")]
    print(f"ci/jobs/wheel.sh: {kind}: {content_type}, {len(links.targets)} link(s), {len(ours)} into {repository}")
    if not content_type.startswith("text/markdown") or not ours or relative:
        print(f"ci/jobs/wheel.sh: error: {kind}: the long description ({content_type}) has relative links {relative}, "
              f"or none into {repository}", file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
PY

# 3. What the wheel holds.
python3 - "$wheel" "$version" "$BANKCHECK_ROOT/pyproject.toml" <<'PY'
import re, subprocess, sys, tempfile, zipfile
from pathlib import Path
wheel, version, pyproject = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).read_text()
problems = []
if not wheel.name.startswith(f"bankcheck-{version}-py3-none-manylinux_"):
    problems.append(f"{wheel.name} is not bankcheck {version} for py3-none-manylinux")
with zipfile.ZipFile(wheel) as archive:
    members = {info.filename: info for info in archive.infolist()}
    for info in sorted(members.values(), key=lambda info: info.filename):
        print(f"  {info.file_size:>9}  {info.filename}")
    required = ["bankcheck/bin/bankcheck", "bankcheck/lib/libbankcheck_inject.so", "bankcheck/lib/libbankcheck_nvtx.so",
                "bankcheck/lib/libbankcheck_emulate_c.so", "bankcheck/__init__.py", "bankcheck/_command.py",
                "bankcheck/pytest_plugin.py", "bankcheck/emulator.py", "bankcheck/triton_cpu.py", "bankcheck/py.typed"]
    problems += [f"no {name}" for name in required if name not in members]
    problems += [f"a CUDA library is bundled: {name}" for name in members
                 if re.search(r"/lib(cuda|cupti|cudart|nvperf|nvidia)[^/]*\.so", name)]
    problems += [f"auditwheel bundled a library: {name}" for name in members if name.startswith("bankcheck.libs/")]
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
    print(f"ci/jobs/wheel.sh: error: the wheel: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY

# 4. Installed in a fresh venv, as `pip install bankcheck` does: pytest and the `cuda` extra's wheels
# hash-locked (ci/requirements/wheel-test-requirements.txt), then the wheel with its extra from those alone
# (--no-index: the extra's requirements must be met by the locked versions).
python3 -m venv "$work/venv"
venv="$work/venv/bin"
# With the `cuda` extra: the injection library must take CUPTI and the runtime from NVIDIA's wheels in
# the venv before any toolkit of the machine (its RUNPATH's first folder).
locked "$venv/python" "$BANKCHECK_ROOT/ci/requirements/wheel-test-requirements.txt" ||
  die "pip install of ci/requirements/wheel-test-requirements.txt failed"
"$venv/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel[cuda]" ||
  die "pip install of the wheel failed (its cuda extra not met by ci/requirements/wheel-test-requirements.txt?)"
package="$("$venv/python" -c 'import bankcheck, pathlib; print(pathlib.Path(bankcheck.__file__).parent)')"
# No empty or relative search path entry in the installed command and libraries (docs/security.md).
python3 "$BANKCHECK_ROOT/ci/checks/check-rpath.py" "$package" || die "an empty or relative RPATH/RUNPATH entry (above)"
for library in libcupti.so libcudart.so; do
  resolved="$(ldd "$package/lib/libbankcheck_inject.so" | sed -n "s/^[[:space:]]*$library[.0-9]* => \([^ ]*\) .*/\1/p")"
  [[ "$(realpath -m "$resolved")" == "$(realpath "$package/..")"/nvidia/cu*/lib/$library* ]] ||
    die "libbankcheck_inject.so takes $library from '$resolved', not from the cuda extra's wheels in the venv"
  echo "ci/jobs/wheel.sh: $library from the cuda extra: $(realpath -m "$resolved")"
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
  echo "ci/jobs/wheel.sh: bankcheck run -- /bin/true: exit status 77 (no usable GPU here: skipped)"
elif ((status == 0)) && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "ci/jobs/wheel.sh: bankcheck run -- /bin/true: exit status 0 (a GPU is present)"
else
  die "bankcheck run -- /bin/true exited with $status (77 without a GPU, 0 with one)"
fi
help="$("$venv/pytest" --help)"
grep -q -- '--bankcheck-baselines=DIR' <<<"$help" || die "pytest --help does not list --bankcheck-baselines: the plugin is not registered"
echo "ci/jobs/wheel.sh: bankcheck $version installed: --help, --version, run (77), the pytest plugin registered"

# 5. The plugin's own tests, from a folder outside the sources so that the installed package is the
# one imported.
(cd "$work" && env -u BANKCHECK PYTHONDONTWRITEBYTECODE=1 "$venv/python" -m pytest -p no:cacheprovider -rs -v \
  "$BANKCHECK_ROOT/python/tests") || die "the pytest plugin's tests failed (above)"

# 6. The oldest pytest the plugin declares (pyproject.toml's `pytest` extra, MINIMUM_PYTEST in the
# plugin), hash-locked in ci/requirements/wheel-test-oldest-requirements.txt: the same tests in a second venv
# (the CPU tests; the GPU test needs the cuda extra and skips). Step 5 ran the newest.
python3 -m venv "$work/venv-oldest"
oldest="$work/venv-oldest/bin"
locked "$oldest/python" "$BANKCHECK_ROOT/ci/requirements/wheel-test-oldest-requirements.txt" ||
  die "pip install of ci/requirements/wheel-test-oldest-requirements.txt failed"
"$oldest/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$wheel" ||
  die "pip install of the wheel beside the oldest pytest failed"
oldest_version="$("$oldest/python" -c 'import pytest; print(pytest.__version__)')"
(cd "$work" && env -u BANKCHECK PYTHONDONTWRITEBYTECODE=1 "$oldest/python" -m pytest -p no:cacheprovider -rs -q \
  "$BANKCHECK_ROOT/python/tests") || die "the pytest plugin's tests failed on pytest $oldest_version (above)"
echo "ci/jobs/wheel.sh: the plugin's tests pass on pytest $oldest_version (the oldest declared) too"
if [[ -n "$out" ]]; then
  mkdir -p "$out"
  cp "$wheel" "$sdist" "$out/"
  echo "ci/jobs/wheel.sh: $(basename "$wheel") and $(basename "$sdist") in $out"
fi
echo "ci/jobs/wheel.sh: the wheel and the sdist are built and checked, the wheel installed and tested"
