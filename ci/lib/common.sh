# Shared by ci/*.sh: where things are, and the configure + build step.
# shellcheck shell=bash
BANKCHECK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BANKCHECK_BUILD_DIR:-$BANKCHECK_ROOT/build}"
JOBS="${BANKCHECK_JOBS:-$(nproc)}"

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
# nvdisasm and cuobjdump from NVIDIA's wheels (ci/jobs/install-deps.sh), where the toolkit has none: the
# emulated suite (docs/emulate.md) reads the kernels' SASS with them. After PATH: a toolkit's own win.
# Called here and again once install-deps.sh has run (a fresh build folder has none before).
# CUDA_TOOLS_DIR: where install-deps.sh puts the wheels (pip --target); CUDA_TOOLS_BIN: where in it
# the wheels put the tools.
CUDA_TOOLS_DIR="$BUILD_DIR/cuda-tools"
CUDA_TOOLS_BIN="$CUDA_TOOLS_DIR/nvidia/cu13/bin"
bankcheck_cuda_tools_on_path() {
  if [[ -d "$CUDA_TOOLS_BIN" && ":$PATH:" != *":$CUDA_TOOLS_BIN:"* ]]; then
    export PATH="$PATH:$CUDA_TOOLS_BIN"
  fi
}
bankcheck_cuda_tools_on_path

# A GoogleTest other than the system's (ci/requirements/googletest-requirements.txt, whose pins give the version):
# ci/jobs/install-deps.sh puts its sources in GOOGLETEST_OTHER_DIR/src, ci/jobs/example.sh builds and installs
# it into GOOGLETEST_OTHER_DIR/prefix once per build folder and builds the example with it.
GOOGLETEST_OTHER_VERSION="$(sed -n 's/^ros-gtest-vendor==\([0-9.]*\).*/\1/p' "$BANKCHECK_ROOT/ci/requirements/googletest-requirements.txt")"
GOOGLETEST_OTHER_DIR="$BUILD_DIR/googletest-$GOOGLETEST_OTHER_VERSION"
# Compiles go through ccache where it is installed (BANKCHECK_CCACHE=0: not): CMake takes its
# compiler launchers from these variables when it configures a build folder for the first time, so
# every build the ci/ scripts start (this tree's, build-fuzz, build-no-cuda, the wheel's, the
# example's with bankcheck fetched, the CPU gate's) uses it. ccache's own settings apply (its cache:
# ~/.cache/ccache unless CCACHE_DIR says otherwise, kept between runs); no path is rewritten (no
# base_dir: the kernels' line information and __FILE__ name the files as CMake gives them), so a
# later run hits where its checkout is at the same path. A launcher already set is kept.
if [[ "${BANKCHECK_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null 2>&1; then
  for bankcheck_language in C CXX CUDA; do
    bankcheck_launcher="CMAKE_${bankcheck_language}_COMPILER_LAUNCHER"
    [[ -n "${!bankcheck_launcher:-}" ]] || export "$bankcheck_launcher=ccache"
  done
  unset bankcheck_language bankcheck_launcher
fi

# bankcheck_find_clang: sets `clang` to BANKCHECK_CLANG, else the first clang++ (clang++-20 down to
# -14) on PATH; empty when there is none (the callers then print a note and pass).
bankcheck_find_clang() {
  clang="${BANKCHECK_CLANG:-}"
  [[ -n "$clang" ]] && return 0
  local candidate
  for candidate in clang++ clang++-{20..14}; do
    if command -v "$candidate" >/dev/null 2>&1; then
      clang="$candidate"
      return 0
    fi
  done
}

# bankcheck_pinned_venv <venv> <requirements> <what>: a venv holding the requirements file's pins
# (every file's hash, wheels only), made again when the file changes (its hash is kept in
# <venv>/pins). Returns 0 when it is ready. Without PyPI it says <what> was NOT checked and returns
# 1 (the caller exits 0), except in CI (CI=true), where it exits 1.
bankcheck_pinned_venv() {
  local venv="$1" requirements="$2" what="$3"
  [[ "$(cat "$venv/pins" 2>/dev/null)" != "$(sha256sum <"$requirements")" ]] || return 0
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if ! python3 -m venv "$venv" ||
    ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 20 \
      --only-binary=:all: --require-hashes -r "$requirements"; then
    rm -rf "$venv"
    echo "bankcheck: could not install the tools of $(basename "$requirements") with pip (above why; offline?): $what NOT checked" >&2
    [[ "${CI:-}" != "true" ]] || { echo "bankcheck: CI=true: pip must reach PyPI" >&2; exit 1; }
    return 1
  fi
  sha256sum <"$requirements" >"$venv/pins"
}

# bankcheck_help <script>: prints the script's opening comment, its help, without the "# ".
bankcheck_help() {
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"
}

# Configure and build everything. Warnings are errors in CI (CI=true) or with BANKCHECK_WERROR=ON.
# BANKCHECK_PREBUILT=1 uses an existing build folder as it is (built on another machine with the
# same CUDA version, e.g. a CPU builder feeding a GPU runner without a compiler).
bankcheck_build() {
  if [[ "${BANKCHECK_PREBUILT:-0}" == 1 ]]; then
    [[ -x "$BUILD_DIR/suites/bankcheck_kernel_suite" ]] ||
      { echo "bankcheck: BANKCHECK_PREBUILT=1 but $BUILD_DIR holds no build" >&2; return 1; }
    echo "bankcheck: using the prebuilt $BUILD_DIR"
    return 0
  fi
  "$BANKCHECK_ROOT/ci/jobs/install-deps.sh"
  bankcheck_cuda_tools_on_path
  mkdir -p "$BUILD_DIR"
  local werror="${BANKCHECK_WERROR:-OFF}"
  [[ "${CI:-}" == "true" ]] && werror=ON
  cmake -S "$BANKCHECK_ROOT" -B "$BUILD_DIR" -DBANKCHECK_WERROR="$werror" ${BANKCHECK_CMAKE_ARGS:-} >"$BUILD_DIR/configure.log" 2>&1 ||
    { cat "$BUILD_DIR/configure.log"; echo "bankcheck: configure failed (log above)" >&2; return 1; }
  echo "bankcheck: building in $BUILD_DIR with $JOBS jobs (warnings are errors: $werror)"
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

# Writes a CTest resource specification with BANKCHECK_TESTS_PER_GPU (default 4) slots per visible
# GPU, so that `ctest -j` spreads GPU tests over the GPUs and runs a few on each at once (counting
# through SASS metrics, processes do not disturb each other; a range-profiler session waits for the
# GPU to itself: docs/counters.md), and prints its path. A machine without a GPU gets one GPU's
# slots: its GPU tests still run, and report themselves skipped. Written by bankcheck-ci, which a
# project's CI runs (framework/ci/bankcheck-ci.sh), so both count GPUs alike.
bankcheck_resource_spec() {
  local spec="$BUILD_DIR/ctest-resources.json"
  "$BANKCHECK_ROOT/framework/ci/bankcheck-ci.sh" --write-resource-spec "$spec" || return 1
  echo "$spec"
}
