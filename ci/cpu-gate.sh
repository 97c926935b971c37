#!/usr/bin/env bash
# The CPU runner job (ci/consumer/bankcheck-ci-cpu.sh, which .github/workflows/bankcheck-cpu-gate.yml
# runs on GitHub's ubuntu-latest) run here on examples/, as a project without a GPU or a CUDA
# install: the toolkit comes from NVIDIA's wheels (kept in <build>/cpu-gate/cuda-venv between runs),
# never from /usr/local/cuda; bankcheck through FetchContent of this checkout; kernels for sm_90 only;
# only the emulated program and the bankcheck command built; `ctest -L emulate`. Checks that
#   - nothing of /usr/local/cuda reached the build: not in CMakeCache.txt (nvcc is the wheels'), and
#     no header or library that a compiler read (the depfiles), links to it resolved;
#   - the job's outputs are there: report.txt and report.md with the emulated program's report and the
#     one summary line, the job summary file, SARIF, the merged emulated results;
#   - with examples' baselines recorded (examples/baselines/sm_90): the job passes, and a doctored
#     kernel line (the padded tile's `kTile + 1` made `kTile`) fails it, at that kernel's line, in
#     the SARIF file and the annotations. Without them the cases fail as MISSING (checked), and the
#     doctored line is not checked (said so).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { bankcheck_help "$0"; exit 0; }

state="$BUILD_DIR/cpu-gate"  # the toolkit's venv, kept: a second run does not download it again
work="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-cpu-gate.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r "$BANKCHECK_ROOT/examples" "$work/src"
fail() {
  echo "bankcheck cpu-gate: $1" >&2
  exit 1
}

# gate <name>: the CPU job on $work/src, into $work/<name>; prints its exit status. ccache (where
# ci/common.sh set it up) knows the wheels' nvcc by its contents: a fresh checkout installs the same
# bytes again, with new dates (ccache's default check).
gate() {
  local status=0
  CCACHE_COMPILERCHECK="${CCACHE_COMPILERCHECK:-content}" GITHUB_ACTIONS=true \
    "$BANKCHECK_ROOT/ci/consumer/bankcheck-ci-cpu.sh" --source "$work/src" --build "$work/build" \
    --toolkit "$state/cuda-venv" --artifacts "$work/$1" --summary "$work/$1.md" --sarif "$work/$1-sarif" -j "$JOBS" \
    -DBANKCHECK_FETCH=ON -DFETCHCONTENT_SOURCE_DIR_BANKCHECK="$BANKCHECK_ROOT" >"$work/$1.log" 2>&1 || status=$?
  echo "$status"
}

start=$SECONDS
status="$(gate first)"
log="$work/first.log"
grep -E '^bankcheck-ci(-cpu)?: ' "$log" | cut -c1-300
cache="$work/build/CMakeCache.txt"
grep -q "^CMAKE_CUDA_COMPILER:[A-Z]*=$state/cuda-venv/lib/python3[.0-9]*/site-packages/nvidia/cu13/bin/nvcc\$" "$cache" ||
  { cat "$log"; fail "CMAKE_CUDA_COMPILER is not the wheels' nvcc"; }
if grep -n '/usr/local/cuda' "$cache"; then fail "the build took something from /usr/local/cuda (above)"; fi
# Each file the compilers read (make's depfiles), through links (/usr/local/include/nvtx3 may be one
# into a toolkit): none in a CUDA install outside the wheels.
mapfile -t leaked < <(find "$work/build" -name '*.d' -type f -exec cat {} + | tr -s '[:blank:]' '\n' |
  grep '^/' | sort -u | xargs -r realpath -q -- | grep -E '^/usr/local/cuda|^/opt/nvidia' | sort -u || true)
((${#leaked[@]} == 0)) || { printf '  %s\n' "${leaked[@]}" | head; fail "the build read the files above from a CUDA install"; }
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
echo "bankcheck cpu-gate: $((SECONDS - start)) s"
