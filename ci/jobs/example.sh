#!/usr/bin/env bash
# The example project (examples/) as a user builds it, outside this tree: against bankcheck
# installed into a temporary prefix (`cmake --install` of the build ci/test.sh made; every installed
# header is first compiled on its own: ci/checks/installed-headers.sh), then through
# FetchContent from this checkout (no network), and through FetchContent again with GoogleTest
# brought by the example itself (GoogleTest's quickstart, from Debian's sources in
# /usr/src/googletest) while find_package may find neither GoogleTest nor CLI11: bankcheck uses the
# example's targets and builds no CLI. Each time: ctest lists the example's own tests and
# none of bankcheck's, its CPU checks pass, and its GPU case is skipped with the reason (on a GPU:
# fails as MISSING, naming the example's own folder and the command that records its baseline).
# Then against the installed package with a GoogleTest other than the one it was built with
# (GOOGLETEST_OTHER_VERSION, ci/lib/common.sh), and with the oldest and the newest CMake.
# The installed build is made by the installed bankcheck-ci (framework/ci/bankcheck-ci.sh), the CI
# job of a project: see check_bankcheck_ci. No ELF file of the install or of the example's builds has
# an empty or relative RPATH/RUNPATH entry (ci/checks/check-rpath.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

[[ -x "$BUILD_DIR/bin/bankcheck" ]] || { echo "bankcheck: no build in $BUILD_DIR; run ci/test.sh first" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-example.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r "$BANKCHECK_ROOT/examples" "$work/src"
# cuobjdump and nvdisasm where a user's machine has them, outside bankcheck's build folder: the
# example's configure finds them (and names them in its test files, which check_no_build_paths reads),
# and ci/jobs/install-deps.sh keeps NVIDIA's wheels' copies in <build>/cuda-tools.
if [[ -d "$CUDA_TOOLS_DIR" ]]; then
  cp -r "$CUDA_TOOLS_DIR" "$work/cuda-tools"
  PATH="${PATH//"$CUDA_TOOLS_DIR"/"$work/cuda-tools"}"
fi
# A new project, which has recorded no baseline yet: examples/baselines/sm_90 is left behind.
rm -rf "$work/src/baselines/"*/

fail() {
  echo "bankcheck example ($1): $2" >&2
  exit 1
}

# write_stale_baseline <baselines folder>: an entry whose case does not exist, in sm_90/gone.json.
write_stale_baseline() {
  mkdir -p "$1/sm_90"
  printf '%s\n' '{"arch": "sm_90", "cases": {"gone/case": {"description": "", "launches": []}},' \
    '"format": "bankcheck-baseline", "recorded_with": {"cuda_driver": "", "cuda_runtime": "", "date": "",' \
    '"device": "", "driver": ""}, "version": 1}' >"$1/sm_90/gone.json"
}

# check_bankcheck_ci <build folder>: the installed bankcheck-ci as a project's CI runs it, finding
# the package it was installed with: configures and builds the example in the folder, runs ctest
# and reports. Without a GPU it exits 0, saying the GPU tests skipped and why, with the summary and
# the artifacts written; with --require-gpu it exits 1 saying there is no GPU. On a GPU it exits 1
# with the case MISSING and a baselines.patch that records it. As under GitHub Actions, the log holds
# the report's workflow commands (the MISSING case an ::error) and --sarif a SARIF file per suite. A
# stale entry in the baselines folder: exit 1 and a baselines.patch that removes it, which `git
# apply` applies.
check_bankcheck_ci() {
  local build="$1" ci="$work/prefix/bin/bankcheck-ci" out="$work/ci" status=0 file
  [[ -x "$ci" ]] || fail bankcheck-ci "cmake --install put no bin/bankcheck-ci in $work/prefix"
  GITHUB_ACTIONS=true "$ci" --source "$work/src" --build "$build" --artifacts "$out" --summary "$work/summary.md" \
    --sarif "$work/sarif" -j "$JOBS" >"$work/ci.log" 2>&1 || status=$?
  if ! grep -q '^bankcheck: [0-9]* regressions\?, ' "$work/ci.log" ||
    ! grep -q '"version": "2.1.0"' "$work/sarif/my_suite.sarif"; then
    cat "$work/ci.log"
    fail bankcheck-ci "under GitHub Actions: no report --format github in the log, or no SARIF for my_suite"
  fi
  if grep -q 'GPU test skipped, no usable GPU' "$work/ci.log"; then
    ((status == 0)) || { cat "$work/ci.log"; fail bankcheck-ci "exited $status without a GPU, not 0"; }
    grep 'bankcheck-ci: no usable GPU on this machine: ' "$work/ci.log" ||
      { cat "$work/ci.log"; fail bankcheck-ci "did not say that there is no usable GPU"; }
    if ! grep -q '^## bankcheck: no GPU' "$work/summary.md" ||
      ! grep -q '^\*\*bankcheck-ci: passed, without a GPU\.\*\*' "$work/summary.md"; then
      cat "$work/summary.md"
      fail bankcheck-ci "the summary file lacks the report or the no-GPU verdict"
    fi
    status=0
    "$ci" --prebuilt --require-gpu --source "$work/src" --build "$build" --artifacts "$work/ci-require-gpu" \
      --summary '' >"$work/ci-require-gpu.log" 2>&1 || status=$?
    if ((status != 1)) || ! grep 'bankcheck-ci: a GPU is required (BANKCHECK_REQUIRE_GPU=1) but there is no usable GPU' \
      "$work/ci-require-gpu.log"; then
      cat "$work/ci-require-gpu.log"
      fail bankcheck-ci "--require-gpu without a GPU: expected exit 1 saying so, got $status"
    fi
  else
    if ((status != 1)) || ! grep -q '^+++ b/baselines/sm_[0-9a-z]*/my_scale.json' "$out/baselines.patch"; then
      cat "$work/ci.log"
      fail bankcheck-ci "on a GPU: expected exit 1 (MISSING) and a baselines.patch recording my_scale"
    fi
    if ! grep -q '^::error .*title=bankcheck%3A missing baseline (my_scale' "$work/ci.log" ||
      ! grep -q '"my_scale/stride2"' "$work/sarif/my_suite.sarif"; then
      cat "$work/ci.log" "$work/sarif/my_suite.sarif"
      fail bankcheck-ci "on a GPU: expected the MISSING case as an ::error in the log and a SARIF result"
    fi
  fi
  for file in report.md report.txt results/my_suite.json junit/my_suite/my_scale.xml junit/my_gpu_test.xml ctest.log; do
    [[ -s "$out/$file" ]] || fail bankcheck-ci "no $file in the artifacts ($out)"
  done
  # A stale entry: the patch removes it.
  local stale="$work/ci-stale-baselines"
  write_stale_baseline "$stale"
  status=0
  BANKCHECK_BASELINES_DIR="$stale" "$ci" --prebuilt --source "$work/src" --build "$build" --artifacts "$work/ci-stale" \
    --summary "$work/ci-stale.md" >"$work/ci-stale.log" 2>&1 || status=$?
  if ((status != 1)) || ! grep -q '^deleted file mode' "$work/ci-stale/baselines.patch" ||
    ! grep -q '^New baselines: .baselines\.patch. in the job' "$work/ci-stale.md"; then
    cat "$work/ci-stale.log"
    fail bankcheck-ci "a stale entry: expected exit 1, a baselines.patch that removes it, and a summary saying so"
  fi
  (cd "$stale" && git apply "$work/ci-stale/baselines.patch") || fail bankcheck-ci "git apply baselines.patch failed"
  [[ ! -e "$stale/sm_90/gone.json" ]] || fail bankcheck-ci "baselines.patch left the stale entry"
  grep 'bankcheck-ci: new baselines' "$work/ci-stale.log"
  echo "bankcheck-ci: as expected"
}

# check_emulated <name> <build folder>: the suite's emulated program (docs/emulate.md), made where
# the kernels have sm_90 SASS: ctest lists it per topic; out of the box (no baseline recorded) its
# cases skip with the command that records first baselines, and the example's own output checks
# (EXPECT_EQ, ASSERT_EQ on what the kernels wrote) run on the outputs the emulator computed and pass
# (my_scale: its results say "output": "passed"). The 1024x1024 transpose is over the output pass's
# default limit: its checks are reported as not evaluated, at their line, never as failures, and with
# BANKCHECK_EMULATE_OUTPUT_LIMIT raised they run and pass. BANKCHECK_REQUIRE_EMULATION=1 fails the
# cases as MISSING; the printed
# command records the derived counts as first baselines, marked as such, and the cases then pass.
# computed_outputs <name> <build folder> <topic>: the topic's emulated cases ran their output checks on
# computed outputs, and they passed.
computed_outputs() {
  local passed
  passed="$(find "$2" -path "*-emulated/cases/$3_*.json" -exec grep -l '"output": "passed"' {} + 2>/dev/null || true)"
  if [[ -z "$passed" ]]; then
    find "$2" -path '*-emulated/cases/*.json' -exec grep -H '"output"' {} + || true
    fail "$1" "expected $3's output checks to run on computed outputs and pass"
  fi
  echo "bankcheck example ($1): $3's output checks ran on computed outputs and passed: $(wc -l <<<"$passed") case(s)"
}

check_emulated() {
  local name="$1" build="$2" listing status=0
  listing="$(ctest --test-dir "$build" -N -L emulate)"
  if ! grep -q 'my_suite/emulated/my_scale$' <<<"$listing"; then
    if grep -qE '^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=(.*;)?90(-real)?(;|$)' "$build/CMakeCache.txt"; then
      echo "$listing"
      fail "$name" "kernels built for sm_90 but ctest lists no my_suite/emulated/my_scale"
    fi
    echo "bankcheck example ($name): no emulated program (its kernels have no sm_90 SASS)"
    return 0
  fi
  grep -q 'my_suite/emulated/my_scale$' <<<"$(ctest --test-dir "$build" -N -L cpu)" &&
    fail "$name" "ctest -L cpu selects the emulated tests, which need cuobjdump and nvdisasm"
  local empty="$build/no-baselines"
  mkdir -p "$empty"
  BANKCHECK_BASELINES_DIR="$empty" ctest --test-dir "$build" -V -L emulate >"$build/emulated.log" 2>&1 || status=$?
  local record="BANKCHECK_UPDATE_BASELINES=emulated BANKCHECK_BASELINES_DIR='$empty' BANKCHECK_CASES='my_scale/stride2' ctest --test-dir $build -R '^my_suite/emulated/my_scale\$'"
  if ((status != 0)) || ! grep -q 'MISSING: case "my_scale/stride2"' "$build/emulated.log" ||
    ! grep -q 'skipped: an emulated case is checked against a baseline' "$build/emulated.log" ||
    ! grep -qF "$record" "$build/emulated.log" ||
    ! grep -q 'output check failures\? at 1 line not evaluated' "$build/emulated.log" ||
    ! grep -q 'tile_transpose.cu:[0-9]*: Expected equality' "$build/emulated.log"; then
    cat "$build/emulated.log"
    fail "$name" "expected the emulated cases to skip for want of a baseline, printing the first-baselines command, with the transpose's output checks not evaluated"
  fi
  grep -m1 'not evaluated' "$build/emulated.log"
  computed_outputs "$name" "$build" my_scale
  BANKCHECK_EMULATE_OUTPUT_LIMIT=2000000 BANKCHECK_BASELINES_DIR="$empty" ctest --test-dir "$build" -V \
    -R '^my_suite/emulated/tile_transpose$' >"$build/emulated-limit.log" 2>&1 || status=$?
  if ((status != 0)) || grep -q 'not evaluated' "$build/emulated-limit.log"; then
    cat "$build/emulated-limit.log"
    fail "$name" "expected the transpose's output checks to run and pass with BANKCHECK_EMULATE_OUTPUT_LIMIT=2000000"
  fi
  computed_outputs "$name" "$build" tile_transpose
  status=0
  BANKCHECK_REQUIRE_EMULATION=1 BANKCHECK_BASELINES_DIR="$empty" ctest --test-dir "$build" --output-on-failure \
    -L emulate >"$build/emulated-required.log" 2>&1 || status=$?
  if ((status == 0)) || ! grep -q 'MISSING: case "my_scale/stride2"' "$build/emulated-required.log"; then
    cat "$build/emulated-required.log"
    fail "$name" "expected BANKCHECK_REQUIRE_EMULATION=1 to fail the emulated cases as MISSING"
  fi
  # As printed: first baselines, marked as derived; then the case passes against them.
  (cd "$build" && eval "$record") >"$build/emulated-record.log" 2>&1 ||
    { cat "$build/emulated-record.log"; fail "$name" "recording first baselines as printed failed"; }
  grep -q '"counters": "emulated"' "$empty/sm_90/my_scale.json" ||
    fail "$name" "first baselines are not marked \"counters\": \"emulated\""
  BANKCHECK_BASELINES_DIR="$empty" ctest --test-dir "$build" --output-on-failure -R '^my_suite/emulated/my_scale$' \
    >"$build/emulated-first.log" 2>&1 || { cat "$build/emulated-first.log"; fail "$name" "the case failed against its first baselines"; }
  grep -q '100% tests passed' "$build/emulated-first.log" ||
    { cat "$build/emulated-first.log"; fail "$name" "the case did not pass against its first baselines"; }
  echo "bankcheck example ($name): emulated cases skip without a baseline, record first baselines as printed, then pass"
}

# check_example <name> <build folder>: its tests as a user sees them.
check_example() {
  local name="$1" build="$2" listing status=0
  listing="$(ctest --test-dir "$build" -N)"
  echo "$listing"
  grep -q 'my_suite/my_scale$' <<<"$listing" || fail "$name" "ctest -N does not list my_suite/my_scale"
  grep -q ' my_suite/model/my_scale\.stride2$' <<<"$listing" ||
    fail "$name" "ctest -N does not list the model check of my_scale/stride2 (my_suite/model/my_scale.stride2)"
  grep -q ' my_suite\.baseline_files$' <<<"$listing" ||
    fail "$name" "ctest -N does not list the baseline files check my_suite.baseline_files"
  if grep -E 'KernelModel|AnnotationTest|BaselineFilesTest' <<<"$listing"; then
    fail "$name" "ctest -N lists the CPU checks by their old names (above)"
  fi
  grep -q 'my_gpu_test$' <<<"$listing" || fail "$name" "ctest -N does not list my_gpu_test (bankcheck_add_gpu_test)"
  if grep -E 'KernelSuite/|bankcheck_|_NOT_BUILT' <<<"$listing"; then
    fail "$name" "ctest -N lists tests that are not the example's (above)"
  fi
  # GoogleTest names the suite's tests after it and the case (my_suite/<topic>.<rest>), and
  # BANKCHECK_CASES selects cases by name; neither needs a GPU.
  local tests selected
  tests="$("$build/my_suite" --gtest_list_tests)"
  grep -qx 'my_suite/my_scale\.' <<<"$tests" && grep -qx '  stride2' <<<"$tests" ||
    { echo "$tests"; fail "$name" "the suite does not name its test my_suite/my_scale.stride2"; }
  selected="$(BANKCHECK_CASES='my_scale/*' "$build/my_suite" --bankcheck_list_cases)"
  [[ "$selected" == my_scale/stride2 ]] ||
    fail "$name" "BANKCHECK_CASES='my_scale/*' selected '$selected', not my_scale/stride2"
  ctest --test-dir "$build" --output-on-failure -L cpu || fail "$name" "the CPU checks failed"
  check_emulated "$name" "$build"
  ctest --test-dir "$build" --output-on-failure -V -L gpu >"$build/gpu.log" 2>&1 || status=$?
  if grep -q 'GPU test skipped, no usable GPU' "$build/gpu.log"; then
    ((status == 0)) || { cat "$build/gpu.log"; fail "$name" "the GPU case was not reported as skipped"; }
    grep -m1 'GPU test skipped' "$build/gpu.log"
    grep -q 'my_suite/my_scale .*Skipped' "$build/gpu.log" || fail "$name" "ctest did not report the GPU case skipped"
    grep -q 'my_gpu_test .*Skipped' "$build/gpu.log" || fail "$name" "ctest did not report the user's GPU test skipped"
  else
    # A usable GPU: the example has no recorded baseline, so its case must fail as MISSING with the
    # command that records it into the example's folder.
    grep -q "MISSING: case \"my_scale/stride2\" (test my_suite/my_scale) has no baseline in $work/src/baselines/" \
      "$build/gpu.log" || { cat "$build/gpu.log"; fail "$name" "expected the GPU case to fail as MISSING"; }
    grep -qF "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='my_scale/stride2' ctest --test-dir $build -R '^my_suite/my_scale\$'" \
      "$build/gpu.log" || { cat "$build/gpu.log"; fail "$name" "expected the command that records my_scale/stride2"; }
    grep -m1 -A1 'Record it with' "$build/gpu.log"
  fi
  # A stale entry in a baselines folder given at run time: the CPU check fails and prints the
  # command that removes it, for this build and that folder; run as printed, it does.
  local stale="$build/stale-baselines" printed expected
  write_stale_baseline "$stale"
  BANKCHECK_BASELINES_DIR="$stale" ctest --test-dir "$build" --output-on-failure -R '^my_suite\.baseline_files$' \
    >"$build/stale.log" 2>&1 && fail "$name" "a stale baseline entry passed the CPU check"
  printed="$(grep -A1 'Remove them with:' "$build/stale.log" | tail -1 | sed 's/^ *//')"
  expected="BANKCHECK_PRUNE_BASELINES=1 BANKCHECK_BASELINES_DIR='$stale' ctest --test-dir $build -R '^my_suite\.baseline_files'"
  [[ "$printed" == "$expected" ]] || { cat "$build/stale.log"; fail "$name" "expected the command: $expected"; }
  (eval "$printed") >"$build/prune.log" 2>&1 || { cat "$build/prune.log"; fail "$name" "the printed command failed"; }
  [[ ! -e "$stale/sm_90/gone.json" ]] || fail "$name" "the printed command left the stale entry"
  echo "printed and run: $printed"
  echo "bankcheck example ($name): as expected"
}

# check_no_build_paths <what> <file or folder>...: no path of the machine that built bankcheck (this
# checkout's folder, the build folder) in the files, binaries included: an installed package or a
# consumer's generated files that name them point at a machine the consumer has never seen.
check_no_build_paths() {
  local what="$1" path paths=() names pattern found
  shift
  for path in "$BANKCHECK_ROOT" "$BUILD_DIR"; do
    paths+=("$path" "$(realpath -m "$path")")
  done
  names="$(printf '%s\n' "${paths[@]}" | sort -u | sed 's/[][\.*^$()+?{}|]/\\&/g' | paste -sd'|')"
  # A path as a whole: not the end of a longer one (/src in /usr/src) nor the start of another (/src2).
  pattern="(^|[^A-Za-z0-9_.+/-])($names)(/|[^A-Za-z0-9_.+-]|\$)"
  mapfile -t found < <(LC_ALL=C grep -rlaE -- "$pattern" "$@" || true)
  if ((${#found[@]})); then
    printf '  %s\n' "${found[@]}" | head -20 >&2
    LC_ALL=C grep -haoE -- ".{0,40}($names).{0,60}" "${found[@]}" | head -5 >&2 || true
    fail "$what" "the files above name the source or build folder of the machine that built bankcheck"
  fi
  echo "bankcheck example ($what): no path of $BANKCHECK_ROOT or $BUILD_DIR in $# files or folders checked"
}

# check_generated_test_files <name> <build folder>: the consumer's CTest files (gtest_discover_tests'
# <target>_..._tests.cmake, the topics' tests) name no path of the machine that built bankcheck.
check_generated_test_files() {
  local files
  mapfile -t files < <(find "$2" \( -name '*_tests.cmake' -o -name '*_topics.cmake' \) -type f)
  ((${#files[@]})) || fail "$1" "no generated *_tests.cmake in $2 (gtest_discover_tests)"
  [[ ! -d "$2/test-results" ]] || files+=("$2/test-results")
  check_no_build_paths "$1" "${files[@]}"
}

# check_fetched_cli <build folder>: the `bankcheck` command that FetchContent of bankcheck builds by
# default, where the README says it is: <build>/_deps/bankcheck-build/bin/bankcheck, also
# BANKCHECK_CLI in the consumer's cache and cli= in the suite's .suite file. It prints bankcheck's
# version, runs the README's next steps on the example's results (merge-results, then report against
# its baselines), and is the command bankcheck-ci finds in that build.
check_fetched_cli() {
  local build="$1" cli="$1/_deps/bankcheck-build/bin/bankcheck" cached status=0
  [[ -x "$cli" ]] || fail fetched-cli "no bankcheck command at the README's $cli"
  cached="$(sed -n 's/^BANKCHECK_CLI:INTERNAL=//p' "$build/CMakeCache.txt")"
  [[ "$cached" == "$cli" ]] || fail fetched-cli "BANKCHECK_CLI is '$cached', not $cli"
  grep -qxF "cli=$cli" "$build/bankcheck-suites/my_suite.suite" ||
    fail fetched-cli "bankcheck-suites/my_suite.suite does not name $cli"
  [[ "$("$cli" --version)" == "$("$BUILD_DIR/bin/bankcheck" --version)" ]] ||
    fail fetched-cli "$cli --version differs from this checkout's bankcheck"
  "$cli" merge-results "$build/my_suite-results" || fail fetched-cli "bankcheck merge-results failed"
  # JSON: every case by name (a text report only counts the skipped ones).
  "$cli" report "$build/my_suite-results/results.json" --baselines "$work/src/baselines" --format json \
    >"$build/report.json" || status=$?
  # 0: the GPU case skipped (no GPU); 1: it failed as MISSING (a GPU, no recorded baseline).
  ((status <= 1)) && grep -q '"my_scale/stride2"' "$build/report.json" ||
    { cat "$build/report.json"; fail fetched-cli "bankcheck report exited $status or did not name my_scale/stride2"; }
  status=0
  "$BANKCHECK_ROOT/framework/ci/bankcheck-ci.sh" --prebuilt --source "$work/src" --build "$build" \
    --artifacts "$work/fetched-ci" --summary '' >"$work/fetched-ci.log" 2>&1 || status=$?
  grep -qF "bankcheck-ci: bankcheck command: $cli (" "$work/fetched-ci.log" ||
    { cat "$work/fetched-ci.log"; fail fetched-cli "bankcheck-ci did not take $cli (exit $status)"; }
  echo "bankcheck example (FetchContent's bankcheck): $cli merged and reported; bankcheck-ci found it"
}

echo
echo "== The example against bankcheck installed into a temporary prefix, built by the installed bankcheck-ci"
start=$SECONDS
cmake --install "$BUILD_DIR" --prefix "$work/prefix" >"$work/install.log"
"$BANKCHECK_ROOT/ci/checks/installed-headers.sh" "$work/prefix"
# The installed `bankcheck run` finds its injection library in the prefix: 0 with a GPU (the
# program launches nothing), 77 without one; 1 or 2 would mean the library is missing or unloadable.
run_status=0
"$work/prefix/bin/bankcheck" run -o "$work/run.json" -- true 2>"$work/run.log" || run_status=$?
[[ $run_status == 0 || $run_status == 77 ]] ||
  { cat "$work/run.log"; fail installed "bankcheck run exited $run_status (the injection library not installed beside it?)"; }
echo "installed bankcheck run: exit $run_status ($(tail -1 "$work/run.log"))"
check_bankcheck_ci "$work/installed"
check_example installed "$work/installed"
check_no_build_paths "installed: the install tree" "$work/prefix"
# No empty or relative RPATH/RUNPATH entry (the current folder) in the install or the example built
# against it (docs/security.md, "Library search paths").
python3 "$BANKCHECK_ROOT/ci/checks/check-rpath.py" --skip-pip "$work/prefix" "$work/installed" ||
  fail installed "an empty or relative RPATH/RUNPATH entry (above)"
check_generated_test_files installed "$work/installed"
echo "bankcheck example (installed): $((SECONDS - start)) s"

echo
echo "== The example with bankcheck through FetchContent from $BANKCHECK_ROOT"
start=$SECONDS
cmake -S "$work/src" -B "$work/fetched" -DBANKCHECK_FETCH=ON -DFETCHCONTENT_SOURCE_DIR_BANKCHECK="$BANKCHECK_ROOT" \
  >"$work/fetched.log" 2>&1 || { cat "$work/fetched.log"; fail fetched "configure failed"; }
# bankcheck as a subproject leaves the build type as the example set it (not at all).
grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$work/fetched/CMakeCache.txt" || fail fetched "CMAKE_BUILD_TYPE was set"
cmake --build "$work/fetched" -j "$JOBS"
check_example fetched "$work/fetched"
check_fetched_cli "$work/fetched"
python3 "$BANKCHECK_ROOT/ci/checks/check-rpath.py" --skip-pip "$work/fetched" ||
  fail fetched "an empty or relative RPATH/RUNPATH entry (above)"
echo "bankcheck example (FetchContent): $((SECONDS - start)) s"

echo
echo "== The example with bankcheck and GoogleTest through FetchContent, find_package(GTest) and (CLI11) disabled"
start=$SECONDS
googletest_src="${BANKCHECK_GOOGLETEST_SOURCE_DIR:-/usr/src/googletest}"
[[ -f "$googletest_src/CMakeLists.txt" ]] ||
  fail own-gtest "no GoogleTest sources in $googletest_src (apt-get install googletest, or BANKCHECK_GOOGLETEST_SOURCE_DIR)"
cmake -S "$work/src" -B "$work/own-gtest" -DBANKCHECK_FETCH=ON -DFETCHCONTENT_SOURCE_DIR_BANKCHECK="$BANKCHECK_ROOT" \
  -DEXAMPLE_FETCH_GOOGLETEST=ON -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST="$googletest_src" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DBANKCHECK_FETCH_DEPENDENCIES=OFF \
  >"$work/own-gtest.log" 2>&1 || { cat "$work/own-gtest.log"; fail own-gtest "configure failed"; }
grep 'bankcheck: GTest: the targets that exist already' "$work/own-gtest.log" ||
  { cat "$work/own-gtest.log"; fail own-gtest "bankcheck did not take the example's GoogleTest targets"; }
if grep -E 'bankcheck: CLI11' "$work/own-gtest.log"; then fail own-gtest "bankcheck looked for CLI11 without the CLI"; fi
# No CLI11 to be had (none found, no download): the command is left out, saying so (BANKCHECK_BUILD_CLI=AUTO).
grep 'bankcheck: not building the bankcheck command (bankcheck::cli): CLI11 is neither' "$work/own-gtest.log" ||
  { cat "$work/own-gtest.log"; fail own-gtest "bankcheck did not say why it builds no bankcheck command"; }
grep -qx 'cli=' "$work/own-gtest/bankcheck-suites/my_suite.suite" || fail own-gtest "my_suite.suite names a bankcheck command"
# The example's programs and what they link, no more (no bankcheck CLI: CLI11 is not there).
cmake --build "$work/own-gtest" -j "$JOBS" --target my_suite my_suite_annotations my_gpu_test
[[ ! -e "$work/own-gtest/_deps/bankcheck-build/bin/bankcheck" ]] || fail own-gtest "the bankcheck CLI was built"
check_example own-gtest "$work/own-gtest"
echo "bankcheck example (FetchContent, the example's own GoogleTest): $((SECONDS - start)) s"

# Any GoogleTest from 1.11 to the newest: the installed package carries the layers that include
# GoogleTest as sources, built in the example's build with the example's GoogleTest
# (cmake/BankcheckGoogleTestLayers.cmake), so an install made against Debian's 1.12.1 serves a project
# whose GoogleTest is another: here GOOGLETEST_OTHER_VERSION (ci/lib/common.sh), from PyPI's sources
# (ci/jobs/install-deps.sh), built and installed as a GTest package (ci/lib/googletest/) once per build folder
# and found first by find_package. Plain ctest must pass: the GPU tests skip without a GPU, and the
# emulated cases run against the example's committed baselines (examples/baselines) and pass.
echo
echo "== The example against the installed bankcheck with GoogleTest $GOOGLETEST_OTHER_VERSION, not the system's"
start=$SECONDS
other_gtest="$GOOGLETEST_OTHER_DIR/prefix"
if [[ ! -f "$GOOGLETEST_OTHER_DIR/src/gtest/src/gtest-all.cc" ]]; then
  echo "bankcheck example: no GoogleTest $GOOGLETEST_OTHER_VERSION sources in $GOOGLETEST_OTHER_DIR/src" \
    "(ci/jobs/install-deps.sh downloads them; offline?): that check was NOT run" >&2
  [[ "${CI:-}" != "true" ]] || fail other-gtest "CI=true: GoogleTest $GOOGLETEST_OTHER_VERSION's sources must be there"
else
  if [[ ! -f "$other_gtest/lib/cmake/GTest/GTestConfigVersion.cmake" ]]; then
    # Installed beside the final folder, then moved: an interrupted run leaves no half package there.
    rm -rf "$GOOGLETEST_OTHER_DIR/build" "$other_gtest.partial"
    { cmake -S "$BANKCHECK_ROOT/ci/lib/googletest" -B "$GOOGLETEST_OTHER_DIR/build" -DCMAKE_BUILD_TYPE=Release \
      -DGOOGLETEST_SOURCES="$GOOGLETEST_OTHER_DIR/src" -DGOOGLETEST_VERSION="$GOOGLETEST_OTHER_VERSION" &&
      cmake --build "$GOOGLETEST_OTHER_DIR/build" -j "$JOBS" &&
      cmake --install "$GOOGLETEST_OTHER_DIR/build" --prefix "$other_gtest.partial"; } >"$work/other-gtest-package.log" 2>&1 ||
      { cat "$work/other-gtest-package.log"; fail other-gtest "building GoogleTest $GOOGLETEST_OTHER_VERSION failed"; }
    mv "$other_gtest.partial" "$other_gtest"
  fi
  cmake -S "$work/src" -B "$work/other-gtest" -DCMAKE_PREFIX_PATH="$other_gtest;$work/prefix" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/other-gtest.log" 2>&1 || { cat "$work/other-gtest.log"; fail other-gtest "configure failed"; }
  found="$(sed -n 's/^GTest_DIR:PATH=//p' "$work/other-gtest/CMakeCache.txt")"
  [[ "$found" == "$other_gtest/lib/cmake/GTest" ]] || fail other-gtest "find_package found GoogleTest in '$found', not $other_gtest"
  cmake --build "$work/other-gtest" -j "$JOBS" >"$work/other-gtest-build.log" 2>&1 ||
    { cat "$work/other-gtest-build.log"; fail other-gtest "the build failed"; }
  BANKCHECK_BASELINES_DIR="$BANKCHECK_ROOT/examples/baselines" ctest --test-dir "$work/other-gtest" --output-on-failure \
    >"$work/other-gtest-ctest.log" 2>&1 || { cat "$work/other-gtest-ctest.log"; fail other-gtest "ctest failed"; }
  cat "$work/other-gtest-ctest.log"
  grep -q 'my_suite/my_scale \.*\(\*\*\*Skipped\| *Passed\)' "$work/other-gtest-ctest.log" ||
    fail other-gtest "ctest ran no my_suite/my_scale"
  # Why the skipped tests skipped (plain ctest does not say): from ctest's own log.
  grep -m1 'GPU test skipped' "$work/other-gtest/Testing/Temporary/LastTest.log" || true
  echo "bankcheck example (GoogleTest $GOOGLETEST_OTHER_VERSION): built and passed, $((SECONDS - start)) s"
fi

# Any CMake from the minimum that bankcheck asks for to the newest: the example against the
# installed bankcheck, configured, built and tested with each (CMake 4 writes gtest_discover_tests'
# properties differently). CMake comes from PyPI (pip --target into the temporary folder; nothing of
# the system's Python changes) unless the one on PATH is that version; where pip cannot reach PyPI
# that check says so and is left out, and fails only in CI (CI=true).

# cmake_from_pip <requirement> <folder>: installs it, prints its bin folder; 1 when pip failed.
cmake_from_pip() {
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --retries 1 --timeout 20 \
    --no-deps --target "$2" "$1" >&2 || return 1
  [[ -x "$2/cmake/data/bin/cmake" ]] || { echo "bankcheck: pip installed no $2/cmake/data/bin/cmake" >&2; return 1; }
  echo "$2/cmake/data/bin"
}

# pip_unavailable <what>: says that a check was left out; in CI a failure.
pip_unavailable() {
  echo "bankcheck example: could not install $1 with pip (above why; offline?): that check was NOT run" >&2
  [[ "${CI:-}" != "true" ]] || fail "$1" "CI=true: pip must reach PyPI"
}

# check_example_with_cmake <name> <bin folder of cmake and ctest>: the example against the installed
# bankcheck with that CMake. Configured first without CMAKE_CUDA_ARCHITECTURES, CMake picks nvcc's
# default and bankcheck_add_kernel_suite warns; with it set, not.
check_example_with_cmake() (
  local name="$1" build="$work/$1"
  export PATH="$2:$PATH"
  echo "$(cmake --version | head -1), $(command -v cmake)"
  # CMake wraps a warning's lines: the log is read as one line.
  warned() { tr -s '\n ' '  ' <"$build.log" | grep -qE 'bankcheck_add_kernel_suite\(my_suite\): its kernels are built for CUDA architectures'; }
  cmake -S "$work/src" -B "$build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$build.log" 2>&1 ||
    { cat "$build.log"; fail "$name" "configure failed"; }
  warned || { cat "$build.log"; fail "$name" "no warning about CMAKE_CUDA_ARCHITECTURES left to CMake's default"; }
  cmake -S "$work/src" -B "$build" -DCMAKE_CUDA_ARCHITECTURES='80-real;90' >"$build.log" 2>&1 ||
    { cat "$build.log"; fail "$name" "configure failed"; }
  ! warned || { cat "$build.log"; fail "$name" "warned with CMAKE_CUDA_ARCHITECTURES set"; }
  cmake --build "$build" -j "$JOBS"
  check_example "$name" "$build"
  check_generated_test_files "$name" "$build"
)

echo
echo "== The example against the installed bankcheck with the oldest and the newest CMake"
start=$SECONDS
minimum="$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\)).*/\1/p' "$BANKCHECK_ROOT/CMakeLists.txt")"
[[ -n "$minimum" ]] || fail cmake "no cmake_minimum_required(VERSION ...) in $BANKCHECK_ROOT/CMakeLists.txt"
path_version="$(cmake --version | sed -n '1s/^cmake version //p')"
if [[ "$path_version" == "$minimum" || "$path_version" == "$minimum".* ]]; then
  check_example_with_cmake cmake-minimum "$(dirname "$(command -v cmake)")"
elif bin="$(cmake_from_pip "cmake~=$minimum.0" "$work/cmake-minimum-pip")"; then
  check_example_with_cmake cmake-minimum "$bin"
else
  pip_unavailable "CMake $minimum"
fi
if bin="$(cmake_from_pip cmake "$work/cmake-newest-pip")"; then
  check_example_with_cmake cmake-newest "$bin"
else
  pip_unavailable "the newest CMake"
fi
echo "bankcheck example (oldest and newest CMake): $((SECONDS - start)) s"
