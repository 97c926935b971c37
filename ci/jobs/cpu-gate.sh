#!/usr/bin/env bash
# The CPU runner job (framework/ci/bankcheck-ci-cpu.sh, which .github/workflows/bankcheck-cpu-gate.yml
# runs on GitHub's ubuntu-latest) run here on examples/, as a project without a GPU or a CUDA
# install: the toolkit comes from NVIDIA's wheels (--toolkit, default <build>/cpu-gate/cuda-venv,
# kept between runs), never from /usr/local/cuda; bankcheck through FetchContent of this checkout,
# or with --bankcheck-tarball a release's install tarball (the workflow's default); kernels for sm_90
# only; only the emulated program (and, by FetchContent, the bankcheck command) built; `ctest -L
# emulate`. ci/jobs/clean-root-gate.sh runs it in a root filesystem without any CUDA install. Checks that
#   - nothing outside the wheels' toolkit reached the build: CMAKE_CUDA_COMPILER is the wheels' nvcc,
#     CMakeCache.txt names no /usr/local/cuda, and every file the linker opened (its trace: the
#     gate links with -Wl,--trace, CMake's compiler checks with -Xlinker=--trace) and every file a
#     compiler read (the depfiles) is the toolkit's, the build's, the sources' or the distribution's
#     and no CUDA file of the distribution (ci/checks/toolkit-reads.sh);
#   - the job's outputs are there: report.txt and report.md with the emulated program's report and the
#     one summary line, the job summary file, SARIF, the merged emulated results;
#   - with examples' baselines recorded (examples/baselines/sm_90): the job passes, and a doctored
#     kernel line (the padded tile's `kTile + 1` made `kTile`) fails it, at that kernel's line, in
#     the SARIF file and the annotations. Without them the cases fail as MISSING (checked), and the
#     doctored line is not checked (said so).
# Prints the seconds of the first gate (from the checked-out project to its verdict) and the whole.
#
# Usage: ci/jobs/cpu-gate.sh [--bankcheck-tarball FILE] [--toolkit DIR] [--out DIR]
#   --bankcheck-tarball FILE   a release's install tarball of bankcheck, SHA256SUMS beside it
#                              (ci/jobs/release.sh makes both); default: FetchContent of this checkout
#   --toolkit DIR              the CUDA wheels' virtual environment (default <build>/cpu-gate/cuda-venv)
#   --out DIR                  keep the first gate's report, summary, SARIF and logs there
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { bankcheck_help "$0"; exit 0; }

fail() {
  echo "bankcheck cpu-gate: $1" >&2
  exit 1
}
usage() {
  echo "bankcheck cpu-gate: error: $1 (see --help)" >&2
  exit 2
}
# The toolkit's venv, kept: a second run does not install it again.
toolkit="$BUILD_DIR/cpu-gate/cuda-venv" tarball="" out=""
while (($#)); do
  case "$1" in
    --bankcheck-tarball) (($# >= 2)) || usage "$1 needs a value"; tarball="$2"; shift 2 ;;
    --toolkit) (($# >= 2)) || usage "$1 needs a value"; toolkit="$2"; shift 2 ;;
    --out) (($# >= 2)) || usage "$1 needs a value"; out="$2"; shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
# bankcheck: the release's tarball, or this checkout through FetchContent.
if [[ -n "$tarball" ]]; then
  bankcheck_args=(--bankcheck-tarball "$tarball")
else
  bankcheck_args=(-DBANKCHECK_FETCH=ON -DFETCHCONTENT_SOURCE_DIR_BANKCHECK="$BANKCHECK_ROOT")
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-cpu-gate.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r "$BANKCHECK_ROOT/examples" "$work/src"

# gate <name>: the CPU job on $work/src, into $work/<name>; prints its exit status. ccache (where
# ci/lib/common.sh set it up) knows the wheels' nvcc by its contents: a fresh checkout installs the same
# bytes again, with new dates (ccache's default check).
gate() {
  local status=0
  # The linker's trace of every link: CMake's compiler checks (nvcc, CMAKE_CUDA_FLAGS) and the
  # programs (the host compiler links them).
  CCACHE_COMPILERCHECK="${CCACHE_COMPILERCHECK:-content}" GITHUB_ACTIONS=true \
    "$BANKCHECK_ROOT/framework/ci/bankcheck-ci-cpu.sh" --source "$work/src" --build "$work/build" \
    --toolkit "$toolkit" --artifacts "$work/$1" --summary "$work/$1.md" --sarif "$work/$1-sarif" -j "$JOBS" \
    -DCMAKE_CUDA_FLAGS=-Xlinker=--trace -DCMAKE_EXE_LINKER_FLAGS=-Wl,--trace "${bankcheck_args[@]}" \
    >"$work/$1.log" 2>&1 || status=$?
  echo "$status"
}

# reads_outside LOG: fails naming each file the build read from outside the toolkit: the linker's
# trace in LOG and in CMake's logs of its checks, the compilers' depfiles.
reads_outside() {
  local logs=("$1") outside file
  for file in CMakeConfigureLog.yaml CMakeOutput.log CMakeError.log; do
    [[ ! -f "$work/build/CMakeFiles/$file" ]] || logs+=("$work/build/CMakeFiles/$file")
  done
  outside="$("$BANKCHECK_ROOT/ci/checks/toolkit-reads.sh" --toolkit "$toolkit" --allow "$work" --allow "$BANKCHECK_ROOT" \
    --depfiles "$work/build" --relative-to "$work/build" "${logs[@]}")" ||
    { printf '  %s\n' "$outside" | head -n 20; fail "the build read the files above from outside the wheels' toolkit"; }
}

start=$SECONDS
status="$(gate first)"
first_seconds=$((SECONDS - start))
log="$work/first.log"
if [[ -n "$out" ]]; then
  mkdir -p "$out"
  cp "$log" "$out/"
  trap 'cp -r "$work/first" "$work/first.md" "$work/first-sarif" "$work/build/CMakeFiles/"CMake*.{yaml,log} "$out/" 2>/dev/null || true
    rm -rf "$work"' EXIT
fi
grep -E '^bankcheck-ci(-cpu)?: ' "$log" | cut -c1-300
cache="$work/build/CMakeCache.txt"
[[ -f "$cache" ]] || { cat "$log"; fail "the job configured nothing (no $cache)"; }
toolkit="$(cd "$toolkit" && pwd)"
grep -q "^CMAKE_CUDA_COMPILER:[A-Z]*=$toolkit/lib/python3[.0-9]*/site-packages/nvidia/cu13/bin/nvcc\$" "$cache" ||
  { cat "$log"; fail "CMAKE_CUDA_COMPILER is not the wheels' nvcc"; }
if grep -n '/usr/local/cuda' "$cache"; then fail "the build took something from /usr/local/cuda (above)"; fi
# Each link's trace opens with the C start file: none, and the check below would pass on nothing
# (a job that stopped before it linked anything says why first).
grep -qE '^/[^ ]*/S?crt1\.o$' "$log" || {
  ((status == 0)) || { cat "$log"; fail "the job failed (exit $status) before it linked anything (above)"; }
  fail "no linker trace in the job's log (-Wl,--trace): nothing to check the links against"
}
reads_outside "$log"
for file in first/report.txt first/report.md first.md first/results/my_suite-emulated.json first-sarif/my_suite-emulated.sarif; do
  [[ -s "$work/$file" ]] || { cat "$log"; fail "the job wrote no $file"; }
done
grep -q 'bankcheck emulated sm_90' "$work/first/report.txt" || fail "report.txt has no report of the emulated program"
grep -qE '^\*\*bankcheck-ci: (passed|failed)\.\*\* .*emulated: 3 \(' "$work/first.md" ||
  { tail -n 5 "$work/first.md"; fail "the job summary lacks the line that counts the 3 emulated cases"; }

if compgen -G "$BANKCHECK_ROOT/examples/baselines/sm_90/*.json" >/dev/null; then
  ((status == 0)) || { cat "$log"; fail "the job failed on examples/ with its baselines (exit $status)"; }
  # The doctored line: the padded tile without its padding; its transposed read (the LDS of the
  # padded kernel) becomes 32-way, and the case fails at that line.
  sed -i 's/tile\[kTile\]\[kTile + 1\]/tile[kTile][kTile]/' "$work/src/kernels/tile_transpose.cu"
  grep -q 'tile\[kTile\]\[kTile\];' "$work/src/kernels/tile_transpose.cu" || fail "the padded tile's line was not found"
  line="$(awk '/tile\[kTile\]\[kTile\];/ { n++ } n == 2 && /= tile\[threadIdx.x\]/ { print NR; exit }' \
    "$work/src/kernels/tile_transpose.cu")"
  [[ -n "$line" ]] || fail "the padded kernel's transposed read was not found"
  status="$(gate doctored)"
  ((status == 1)) || { cat "$work/doctored.log"; fail "the doctored kernel line: exit $status, not 1"; }
  reads_outside "$work/doctored.log"
  grep -q "^::error file=kernels/tile_transpose.cu,line=$line,.*tile_transpose/padded" "$work/doctored.log" ||
    { cat "$work/doctored.log"; fail "no annotation of tile_transpose/padded at kernels/tile_transpose.cu:$line"; }
  python3 - "$work/doctored-sarif/my_suite-emulated.sarif" "$line" <<'EOF' || fail "no SARIF result at tile_transpose.cu:$line"
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
sys.exit(not any(l["physicalLocation"]["artifactLocation"]["uri"].endswith("tile_transpose.cu")
                 and l["physicalLocation"]["region"]["startLine"] == int(sys.argv[2])
                 for r in results for l in r.get("locations", [])))
EOF
  echo "bankcheck cpu-gate: the doctored padding failed at kernels/tile_transpose.cu:$line (annotation and SARIF)"
else
  # No baselines yet (they are recorded on a GPU): the decided cases fail as MISSING.
  if ((status != 1)) || ! grep -q 'MISSING: case "tile_transpose/padded"' "$log"; then
    cat "$log"
    fail "without baselines: expected exit 1 with the cases MISSING, got $status"
  fi
  echo "bankcheck cpu-gate: note: examples/baselines/sm_90 holds no baseline, so the cases fail as MISSING (as" \
    "expected) and the doctored kernel line is NOT checked: record them on a GPU (ci/README.md)"
fi
echo "bankcheck cpu-gate: nothing read from outside the wheels' toolkit (linker trace, depfiles)"
echo "bankcheck cpu-gate: examples/ from its checkout to its verdict in ${first_seconds} s; $((SECONDS - start)) s in all"
