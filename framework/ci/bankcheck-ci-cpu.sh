#!/usr/bin/env bash
# bankcheck-ci-cpu: the GPU-less gate of a project that tests its kernels with bankcheck, on a
# machine with no GPU and no CUDA toolkit (a GitHub-hosted ubuntu-latest runner). GitHub Actions runs
# it through the reusable workflow .github/workflows/bankcheck-cpu-gate.yml; this repository's own CI
# runs it on examples/ (.ci/run, ci/jobs/cpu-gate.sh). It
#
#   1. installs the CUDA toolkit's parts the gate needs from NVIDIA's wheels on the package index,
#      at pinned versions, each file by its SHA-256 (cuda-wheels-requirements.txt, beside this script:
#      pip --require-hashes --only-binary :all:), into a virtual environment (--toolkit, default <build>/cuda-venv; kept
#      and reused): nvcc, cicc, the CUDA runtime's headers and libraries, CUPTI, CCCL, NVTX, the profiler API, cuobjdump and
#      nvdisasm, all in <venv>/lib/python3.*/site-packages/nvidia/cu13/{bin,include,lib,nvvm};
#      /usr/local/cuda is never used (nvcc is given to CMake by its full path)
#   2. checks for CMake, a C++ compiler and GoogleTest, nlohmann-json and CLI11 (Debian/Ubuntu
#      packages: installed with apt-get where this runs as root or with password-less sudo)
#   3. bankcheck, prebuilt: with --bankcheck-tarball FILE, a release's install tarball
#      (bankcheck-<version>-linux-x86_64-cuda13.tar.gz, ci/jobs/release.sh), checked against the
#      SHA256SUMS beside it and unpacked into <build>/bankcheck-prefix; run as the installed
#      bankcheck-ci-cpu (<prefix>/bin), the bankcheck it belongs to. From a checkout instead, with
#      --install-bankcheck DIR: built with the same toolkit and installed into <build>/bankcheck-prefix.
#      find_package(bankcheck) then finds it (without any of these: the project's own way, e.g.
#      FetchContent)
#   4. configures the project with that toolkit for sm_90 (CMAKE_CUDA_ARCHITECTURES=90: the emulator
#      reads sm_90 SASS) and builds only each kernel suite's emulated program (<suite>_emulated) and,
#      where the build makes it (FetchContent of bankcheck), the bankcheck command; a suite whose
#      own CUDA_ARCHITECTURES leave out 90 has none (said, with the reason): its GPU program is built
#      for the test that stands in for its emulated tests (skipped; failed with
#      BANKCHECK_REQUIRE_EMULATION=1)
#   5. runs bankcheck-ci --prebuilt on it with `ctest -L emulate`: the emulated suite, reported like
#      the GPU job (report.md and the job summary, report.txt, GitHub annotations, SARIF with
#      --sarif, results, JUnit XML; baselines.patch only for a stale entry, or, with
#      --emulated-baselines, first baselines from the emulator: the decided cases without a
#      baseline, marked "counters": "emulated", each undecided case left out and listed with its
#      reason; apply the patch, commit it, and the next run checks against them (docs/ci.md))
#
# Usage: bankcheck-ci-cpu.sh [options] [-- ctest arguments (default: -L emulate)]
#   -s, --source DIR            the project (default .)
#   -b, --build DIR             its build folder (default <source>/build-cpu)
#   -D VAR=VALUE, --cmake-arg ARG   for configuring the project (repeat)
#       --bankcheck-tarball FILE  a release's install tarball of bankcheck (SHA256SUMS beside it)
#       --install-bankcheck DIR build and install bankcheck from this checkout first
#       --toolkit DIR           the virtual environment of the CUDA wheels (default <build>/cuda-venv)
#       --artifacts DIR, --summary FILE, --sarif DIR, --shard I/N, -j N, --emulated-baselines
#                               as bankcheck-ci's (its --help)
#   -h, --help                  this text
# Exit status: bankcheck-ci's (0 the gate passed, 1 a case or test failed, or a step failed; 2 usage).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The wheels, pinned by version and by each file's SHA-256: a file of the index that changed, or a
# source distribution in its place, is refused instead of run (docs/security.md).
# Beside this script in the source tree; installed, in <prefix>/share/bankcheck.
CUDA_WHEELS="$here/cuda-wheels-requirements.txt"
[[ -f "$CUDA_WHEELS" || ! -f "$here/../share/bankcheck/cuda-wheels-requirements.txt" ]] ||
  CUDA_WHEELS="$(cd "$here/../share/bankcheck" && pwd)/cuda-wheels-requirements.txt"
# bankcheck-ci: beside this script, by its source name or its installed one.
bankcheck_ci="$here/bankcheck-ci.sh"
[[ -f "$bankcheck_ci" ]] || bankcheck_ci="$here/bankcheck-ci"
HOST_PACKAGES=(cmake g++ make googletest libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev)

say() { echo "bankcheck-ci-cpu: $*"; }
die() { echo "bankcheck-ci-cpu: error: $1" >&2; exit "${2:-1}"; }

source_dir=. build_dir="" toolkit="" bankcheck_src="" bankcheck_tarball="" jobs="${BANKCHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
cmake_args=() ci_args=() ctest_args=(-L emulate)
while (($#)); do
  case "$1" in
    -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    -s | --source) source_dir="${2:?--source needs a value}"; shift 2 ;;
    -b | --build) build_dir="${2:?--build needs a value}"; shift 2 ;;
    -D) cmake_args+=("-D${2:?-D needs a value}"); shift 2 ;;
    -D?*) cmake_args+=("$1"); shift ;;
    --cmake-arg) cmake_args+=("${2:?--cmake-arg needs a value}"); shift 2 ;;
    --install-bankcheck) bankcheck_src="${2:?--install-bankcheck needs a value}"; shift 2 ;;
    --bankcheck-tarball) bankcheck_tarball="${2:?--bankcheck-tarball needs a value}"; shift 2 ;;
    --toolkit) toolkit="${2:?--toolkit needs a value}"; shift 2 ;;
    --artifacts | --summary | --sarif | --shard) ci_args+=("$1" "${2?$1 needs a value}"); shift 2 ;;
    --emulated-baselines) ci_args+=("$1"); shift ;;
    -j | --jobs) jobs="${2:?--jobs needs a value}"; shift 2 ;;
    --) shift; ctest_args=("$@"); break ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a whole number >= 1, not '$jobs'" 2
[[ -d "$source_dir" ]] || die "no source folder '$source_dir'" 2
[[ -z "$bankcheck_src" || -z "$bankcheck_tarball" ]] || die "give --install-bankcheck or --bankcheck-tarball, not both" 2
if [[ -n "$bankcheck_tarball" ]]; then
  [[ -f "$bankcheck_tarball" ]] || die "no file '$bankcheck_tarball' (--bankcheck-tarball)" 2
  bankcheck_tarball="$(cd "$(dirname "$bankcheck_tarball")" && pwd)/$(basename "$bankcheck_tarball")"
fi
source_dir="$(cd "$source_dir" && pwd)"
[[ -n "$build_dir" ]] || build_dir="$source_dir/build-cpu"
mkdir -p "$build_dir"
build_dir="$(cd "$build_dir" && pwd)"
[[ -n "$toolkit" ]] || toolkit="$build_dir/cuda-venv"
start=$SECONDS

# 2. Host tools and libraries.
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${HOST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if ((${#missing[@]})); then
  sudo=()
  [[ "$(id -u)" == 0 ]] || sudo=(sudo -n)
  if command -v apt-get >/dev/null 2>&1 && "${sudo[@]}" true 2>/dev/null; then
    say "installing ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "note: missing packages ${missing[*]}, and no root to install them: sudo apt-get install -y ${missing[*]}" \
      "(or make GoogleTest, nlohmann-json and CLI11 findable by CMake: -DCMAKE_PREFIX_PATH=...)"
  fi
fi
command -v cmake >/dev/null 2>&1 || die "no cmake on PATH (apt-get install cmake, or pip install cmake)"

# 1. The CUDA toolkit from the wheels.
cu13() { compgen -G "$toolkit/lib/python3*/site-packages/nvidia/cu13" | head -n 1; }
stamp="$toolkit/bankcheck-wheels.txt"
[[ -f "$CUDA_WHEELS" ]] || die "no $CUDA_WHEELS (the CUDA wheels' pins and hashes)"
wanted="$(sha256sum <"$CUDA_WHEELS")"
if [[ ! -x "$(cu13)/bin/nvcc" || "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
  command -v python3 >/dev/null 2>&1 || die "no python3 to install the CUDA wheels with"
  say "installing the CUDA toolkit's wheels into $toolkit: $(grep -oE '^[a-z0-9-]+==[0-9.]+' "$CUDA_WHEELS" | paste -sd' ')"
  rm -rf "$toolkit"
  python3 -m venv "$toolkit" ||
    die "python3 -m venv $toolkit failed (apt-get install python3-venv)"
  "$toolkit/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary :all: --retries 2 --timeout 60 -r "$CUDA_WHEELS" ||
    die "pip could not install the CUDA wheels of $CUDA_WHEELS (above why; a hash that does not match is a file the index changed)"
  echo "$wanted" >"$stamp"
fi
cuda="$(cu13)"
[[ -x "$cuda/bin/nvcc" && -x "$cuda/bin/cuobjdump" && -x "$cuda/bin/nvdisasm" && -x "$cuda/nvvm/bin/cicc" ]] ||
  die "the wheels in $toolkit laid out no nvcc, cuobjdump, nvdisasm or cicc under $cuda"
# The wheels ship the runtime's and CUPTI's libraries by their versioned names only; CMake's
# FindCUDAToolkit (CUDA::cudart, CUDA::cupti) looks for the linker's names.
for lib in cudart cupti; do
  [[ -e "$cuda/lib/lib$lib.so" ]] || ln -s "lib$lib.so.13" "$cuda/lib/lib$lib.so"
done
# nvcc's profile (bin/nvcc.profile, the toolkit's layout) links with -L$(TOP)/lib64, and the wheels
# put the libraries in lib/: without lib64, `-lcudadevrt -lcudart_static` fail to link (CMake's
# compiler check), or, worse, ld finds another toolkit's in its own search path (/usr/local/lib64).
[[ -e "$cuda/lib64" ]] || ln -s lib "$cuda/lib64"
[[ "$(cd "$cuda/lib64" && pwd -P)" == "$(cd "$cuda/lib" && pwd -P)" ]] ||
  die "$cuda/lib64 is not the wheels' lib folder (nvcc links from lib64): remove $toolkit and run again"
# The wheels' tools first; /usr/local/cuda, where there is one, is left out of PATH.
PATH="$cuda/bin:$(tr ':' '\n' <<<"$PATH" | grep -vx '/usr/local/cuda[^:]*' | paste -sd: -)"
export PATH CUDAToolkit_ROOT="$cuda"
toolkit_args=(-DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" -DCUDAToolkit_ROOT="$cuda")
say "CUDA toolkit: $("$cuda/bin/nvcc" --version | tail -n 1) in $cuda ($((SECONDS - start)) s so far)"

# 3. bankcheck: a release's tarball, this script's own install, or built from a checkout.
installed_prefix=""
if compgen -G "$here/../lib*/cmake/bankcheck/bankcheckConfig.cmake" >/dev/null; then
  installed_prefix="$(cd "$here/.." && pwd)"
fi
if [[ -n "$bankcheck_tarball" ]]; then
  # The tarball as the release publishes it: its name in the SHA256SUMS beside it, the sum matching.
  sums="$(dirname "$bankcheck_tarball")/SHA256SUMS" name="$(basename "$bankcheck_tarball")"
  [[ "$name" =~ ^(bankcheck-[0-9]+\.[0-9]+\.[0-9]+-linux-[a-z0-9_]+-cuda[0-9]+)\.tar\.gz$ ]] ||
    die "--bankcheck-tarball: '$name' is not a release tarball's name (bankcheck-<version>-linux-<machine>-cuda<major>.tar.gz)" 2
  top="${BASH_REMATCH[1]}"
  [[ -f "$sums" ]] && grep -qE "^[0-9a-f]{64}  $name\$" "$sums" ||
    die "no SHA256SUMS beside $bankcheck_tarball that lists it (download both from the release)"
  (cd "$(dirname "$bankcheck_tarball")" && grep -E "  $name\$" SHA256SUMS | sha256sum --check --strict --quiet) ||
    die "$name does not match its SHA256SUMS: not the release's file"
  rm -rf "$build_dir/bankcheck-prefix" "$build_dir/bankcheck-unpack"
  mkdir -p "$build_dir/bankcheck-unpack"
  tar -xzf "$bankcheck_tarball" -C "$build_dir/bankcheck-unpack" --no-same-owner ||
    die "could not unpack $bankcheck_tarball"
  [[ -d "$build_dir/bankcheck-unpack/$top" ]] || die "$name holds no folder $top"
  mv "$build_dir/bankcheck-unpack/$top" "$build_dir/bankcheck-prefix"
  rm -rf "$build_dir/bankcheck-unpack"
  say "bankcheck: $("$build_dir/bankcheck-prefix/bin/bankcheck" --version) from $name"
  export CMAKE_PREFIX_PATH="$build_dir/bankcheck-prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  ci_args+=(--prefix "$build_dir/bankcheck-prefix")
elif [[ -z "$bankcheck_src" && -n "$installed_prefix" ]]; then
  say "bankcheck: $("$installed_prefix/bin/bankcheck" --version) in $installed_prefix (this script's install)"
  export CMAKE_PREFIX_PATH="$installed_prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  ci_args+=(--prefix "$installed_prefix")
fi
if [[ -n "$bankcheck_src" ]]; then
  [[ -f "$bankcheck_src/CMakeLists.txt" ]] || die "--install-bankcheck: no CMakeLists.txt in '$bankcheck_src'" 2
  say "building and installing bankcheck from $bankcheck_src"
  cmake -S "$bankcheck_src" -B "$build_dir/bankcheck-build" -DBANKCHECK_BUILD_TESTS=OFF \
    -DBANKCHECK_BUILD_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 "${toolkit_args[@]}" >"$build_dir/bankcheck-build.log" 2>&1 ||
    { cat "$build_dir/bankcheck-build.log"; die "configuring bankcheck failed (above)"; }
  cmake --build "$build_dir/bankcheck-build" -j "$jobs" >>"$build_dir/bankcheck-build.log" 2>&1 ||
    { tail -n 50 "$build_dir/bankcheck-build.log"; die "building bankcheck failed (above)"; }
  rm -rf "$build_dir/bankcheck-prefix"
  cmake --install "$build_dir/bankcheck-build" --prefix "$build_dir/bankcheck-prefix" >/dev/null
  export CMAKE_PREFIX_PATH="$build_dir/bankcheck-prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  ci_args+=(--prefix "$build_dir/bankcheck-prefix")
fi

# 4. Configure for sm_90 and build only what the emulated suite runs.
say "configuring $source_dir in $build_dir for sm_90"
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_CUDA_ARCHITECTURES=90 "${toolkit_args[@]}" "${cmake_args[@]}" \
  >"$build_dir/configure.log" 2>&1 || { cat "$build_dir/configure.log"; die "configure failed (above)"; }
targets=()
for file in "$build_dir"/bankcheck-suites/*.suite; do
  [[ -f "$file" ]] || continue
  target="$(sed -n 's/^target=//p' "$file")"
  # A suite whose kernels have no sm_90 SASS (its own CUDA_ARCHITECTURES without 90) has no emulated
  # program; its .suite file says why. Its stand-in test (<prefix>/emulated/no_emulated_program, run
  # by the GPU program) decides: skipped with that reason, failed under BANKCHECK_REQUIRE_EMULATION=1.
  no_emulated="$(sed -n 's/^no_emulated_program=//p' "$file")"
  if [[ -n "$no_emulated" ]]; then
    say "suite $target has no sm_90 emulated program ($no_emulated): its cases are not emulated;" \
      "building $target for its stand-in test, skipped (failed with BANKCHECK_REQUIRE_EMULATION=1)"
    targets+=("$target")
  else
    targets+=("${target}_emulated")
  fi
  cli="$(sed -n 's/^cli=//p' "$file")"
  # The bankcheck command when this build makes it (FetchContent of bankcheck), not --install-bankcheck's.
  if [[ "$cli" == "$build_dir"/* && "$cli" != "$build_dir/bankcheck-prefix/"* && " ${targets[*]} " != *" bankcheck "* ]]; then
    targets+=(bankcheck)
  fi
done
((${#targets[@]})) || die "no kernel suite in $build_dir (bankcheck_add_kernel_suite): nothing to emulate"
say "building ${targets[*]} with $jobs jobs"
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}" || die "build failed (above)"
say "toolkit and build: $((SECONDS - start)) s"

# 5. The emulated suite, reported as the GPU job reports.
status=0
"$bankcheck_ci" --prebuilt --source "$source_dir" --build "$build_dir" -j "$jobs" "${ci_args[@]}" \
  -- "${ctest_args[@]}" || status=$?
say "done in $((SECONDS - start)) s (exit $status)"
exit "$status"
