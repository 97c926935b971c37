#!/usr/bin/env bash
# bankcheck-ci: the CI job of a project that tests its kernels with bankcheck
# (bankcheck_add_kernel_suite, bankcheck_add_gpu_test), for any CI system. GitHub Actions runs it
# through the reusable workflow .github/workflows/bankcheck-suite.yml. Installed as
# <prefix>/bin/bankcheck-ci. Needs no root and installs nothing: cmake, ctest and the `bankcheck`
# command (and python3 with --shard, for the shard's plan).
#
#   1. configure and build the project (not with --prebuilt)
#   2. ctest: every test, GPU tests with a CTest resource specification for the visible GPUs
#   3. each kernel suite: `bankcheck merge-results` of its results folder and of its emulated
#      program's (<results>-emulated, docs/emulate.md), each `bankcheck report` (text to the log,
#      Markdown appended to the job summary: --summary, default $GITHUB_STEP_SUMMARY; under GitHub
#      Actions also its failures as workflow commands, which GitHub shows on the pull request's
#      lines; with --sarif DIR a SARIF file per suite for code scanning: these line findings come
#      from the measured cases where the GPU program measured any, else from the emulated
#      program's, <suite>-emulated.sarif), then one line that adds up both programs' cases
#   4. artifacts (--artifacts, default <build>/bankcheck-ci): report.md, report.txt,
#      results/<suite>.json and results/<suite>-emulated.json, junit/ (GoogleTest's XML), ctest.log;
#      with --shard, plan/ (the cases this shard was to run, for bankcheck-merge --shards)
#   5. when a case's counts differ from its baseline (a regression, an improvement, a change, a
#      missing baseline) or a baseline entry is stale: records the suites into a copy of their
#      baselines folder and writes baselines.patch, the diff to apply and commit if the change was
#      meant. Emulated counts are never offered as baselines, unless --emulated-baselines asks
#      for first baselines from the emulator (`bankcheck update-baselines --emulated`)
#
# Exit status: 0 when every test passed, or skipped for want of a usable GPU (said so; with
# --require-gpu or BANKCHECK_REQUIRE_GPU=1 that fails instead); 1 when a test failed, `bankcheck
# report` fails a case of a suite (README.md, "When a case fails": the suite's own rule) or
# configure/build failed; 2 for a usage error.
set -euo pipefail

program="$(basename "${BASH_SOURCE[0]}")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Its parts: beside it in the source tree, in <prefix>/share/bankcheck where it is installed.
parts="$here"
[[ -f "$parts/bankcheck-ci-report.sh" ]] || parts="$here/../share/bankcheck"
# shellcheck source=bankcheck-ci-report.sh
source "$parts/bankcheck-ci-report.sh"     # print_skipped, write_shard_plan, report_program
# shellcheck source=bankcheck-ci-baselines.sh
source "$parts/bankcheck-ci-baselines.sh"  # write_baselines_patch, patch_baselines_folder

usage() {
  cat <<EOF
Usage: $program [options] [-- ctest arguments]

Builds a project that uses bankcheck, runs its tests with ctest and reports its kernel suites.

  -s, --source DIR        the project's source folder (default: .)
  -b, --build DIR         its build folder (default: <source>/build)
  -D VAR=VALUE, --cmake-arg ARG
                          an argument for the configure step (repeat for more)
      --prebuilt          use the build folder as it is: no configure, no build (a build made on
                          another machine, copied to the same absolute path)
      --prefix DIR        an installed bankcheck: its CMake package and its bankcheck command
      --bankcheck FILE    the bankcheck command (default: --prefix's, the one beside this script,
                          the one on PATH, then one built in the build folder)
      --require-gpu       fail when there is no usable GPU (as BANKCHECK_REQUIRE_GPU=1)
      --artifacts DIR     where to write reports, results, JUnit XML and baselines.patch
                          (default: <build>/bankcheck-ci)
      --summary FILE      append the Markdown report to FILE (default: \$GITHUB_STEP_SUMMARY;
                          '' for none)
      --sarif DIR         write each kernel suite's failures as SARIF 2.1.0, DIR/<suite>.sarif (for
                          GitHub code scanning: github/codeql-action/upload-sarif with sarif_file DIR)
  -j, --jobs N            build and test jobs (default: BANKCHECK_JOBS, else the processor count)
      --tests-per-gpu N   GPU tests at a time on each GPU (default: BANKCHECK_TESTS_PER_GPU, else 4)
      --shard I/N         run shard I of N (GoogleTest's GTEST_SHARD_INDEX=I-1, GTEST_TOTAL_SHARDS=N):
                          each kernel suite runs its share of the cases; merge the shards' results/
                          with bankcheck-merge --shards N, which checks each shard's plan/
                          (docs/ci.md, "Sharding")
      --no-baseline-patch do not record changed baselines into a copy
      --emulated-baselines
                          where the GPU program measured nothing (no GPU), offer the emulated
                          program's counts as first baselines in baselines.patch, marked as
                          derived (bankcheck update-baselines --emulated; docs/emulate.md)
      --write-resource-spec FILE
                          only write the CTest resource specification for the visible GPUs
      --print-skipped CTEST_OUTPUT LAST_TEST_LOG
                          only print the tests a ctest run skipped, each under its reason
                          (what this script prints after its ctest)
      --ctest-post-test BUILD_DIR
                          only print the tests the running ctest of BUILD_DIR skipped, each
                          under its reason, read from its log (what a plain ctest runs at its end:
                          the CTestCustom.cmake that bankcheck_add_kernel_suite writes); prints
                          nothing under BANKCHECK_PRINT_SKIPPED=0, exits 0 whatever it finds
  -h, --help              this text

Everything after -- goes to ctest (e.g. -- -L gpu --timeout 600).

Exit status: 0 every test passed (or, without --require-gpu, skipped for want of a GPU); 1 a test
failed, \`bankcheck report\` fails a case (README.md, "When a case fails"), or configure or build
failed; 2 usage error.
EOF
}

die_usage() {
  echo "bankcheck-ci: error: $1 (see --help)" >&2
  exit 2
}
needs_value() { (($# >= 2)) || die_usage "$1 needs a value"; }

say() { echo "bankcheck-ci: $*"; }
# $1 as a regular expression (CTest's) that matches exactly it (as the suites' messages write it).
regex_escape() {
  local text="$1" out="" c i
  for ((i = 0; i < ${#text}; i++)); do
    c="${text:i:1}"
    [[ '.[]()*+?^$|\{}' != *"$c"* ]] || out+="\\"
    out+="$c"
  done
  printf '%s' "$out"
}
warn() { echo "bankcheck-ci: $*" >&2; }

# Writes a CTest resource specification to $1 with $2 slots per visible GPU (CUDA_VISIBLE_DEVICES,
# else `nvidia-smi -L`): every GPU test asks for one slot (RESOURCE_GROUPS gpus:1), so `ctest -j`
# spreads GPU tests over the GPUs, a few on each at a time. A machine without a GPU gets one GPU's
# slots: its GPU tests still run, and report themselves skipped. (ci/test.sh uses this too.) Sets
# spec_gpus to the GPUs found (0: none).
write_resource_spec() {
  local spec="$1" slots="$2" gpus=0 i
  [[ "$slots" =~ ^[1-9][0-9]*$ ]] ||
    { warn "BANKCHECK_TESTS_PER_GPU (--tests-per-gpu) must be a whole number >= 1, not '$slots'"; return 2; }
  if [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
    gpus=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c . || true)
  elif command -v nvidia-smi >/dev/null 2>&1; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  fi
  spec_gpus=$gpus
  ((gpus > 0)) || gpus=1
  {
    printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
    for ((i = 0; i < gpus; i++)); do
      printf '%s{"id": "%d", "slots": %d}' "$([[ $i -gt 0 ]] && echo ', ')" "$i" "$slots"
    done
    printf ']}]}\n'
  } >"$spec"
}

source_dir=.
build_dir=""
cmake_args=()
ctest_args=()
prebuilt=0
prefix=""
cli=""
artifacts=""
summary="${GITHUB_STEP_SUMMARY:-}"
sarif_dir=""
jobs="${BANKCHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
slots="${BANKCHECK_TESTS_PER_GPU:-4}"
baseline_patch=1
emulated_baselines=0
spec_only=""
skipped_from=()
post_test_dir=""

while (($#)); do
  option="$1"
  value=""
  case "$option" in
    --*=*) value="${option#*=}"; option="${option%%=*}"; set -- "$option" "$value" "${@:2}" ;;
  esac
  case "$option" in
    -h | --help) usage; exit 0 ;;
    -s | --source) needs_value "$@"; source_dir="$2"; shift 2 ;;
    -b | --build) needs_value "$@"; build_dir="$2"; shift 2 ;;
    --cmake-arg) needs_value "$@"; cmake_args+=("$2"); shift 2 ;;
    -D) needs_value "$@"; cmake_args+=("-D$2"); shift 2 ;;
    -D?*) cmake_args+=("$option"); shift ;;
    --prebuilt) prebuilt=1; shift ;;
    --prefix) needs_value "$@"; prefix="$2"; shift 2 ;;
    --bankcheck) needs_value "$@"; cli="$2"; shift 2 ;;
    --require-gpu) export BANKCHECK_REQUIRE_GPU=1; shift ;;
    --artifacts) needs_value "$@"; artifacts="$2"; shift 2 ;;
    --summary) needs_value "$@"; summary="$2"; shift 2 ;;
    --sarif) needs_value "$@"; sarif_dir="$2"; shift 2 ;;
    -j | --jobs) needs_value "$@"; jobs="$2"; shift 2 ;;
    -j?*) jobs="${option#-j}"; shift ;;
    --tests-per-gpu) needs_value "$@"; slots="$2"; shift 2 ;;
    --shard) needs_value "$@"; [[ "$2" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2])) ||
      die_usage "--shard takes I/N with 1 <= I <= N, not '$2'"
      export GTEST_SHARD_INDEX=$((BASH_REMATCH[1] - 1)) GTEST_TOTAL_SHARDS="${BASH_REMATCH[2]}"; shift 2 ;;
    --no-baseline-patch) baseline_patch=0; shift ;;
    --emulated-baselines) emulated_baselines=1; shift ;;
    --write-resource-spec) needs_value "$@"; spec_only="$2"; shift 2 ;;
    --print-skipped) (($# >= 3)) || die_usage "--print-skipped needs ctest's output and its LastTest.log"
      skipped_from=("$2" "$3"); shift 3 ;;
    --ctest-post-test) needs_value "$@"; post_test_dir="$2"; shift 2 ;;
    --) shift; ctest_args=("$@"); break ;;
    *) die_usage "unknown option '$option'" ;;
  esac
done

if ((${#skipped_from[@]})); then
  print_skipped "${skipped_from[@]}"
  exit
fi
if [[ -n "$post_test_dir" ]]; then
  # The log ctest is writing (LastTest.log.tmp, LastTest_<time>.log.tmp under -T; CTest 4 adds a
  # random suffix), the newest if several; else the last one written.
  [[ "${BANKCHECK_PRINT_SKIPPED:-1}" != 0 ]] || exit 0
  log=""
  for running in "$post_test_dir"/Testing/Temporary/LastTest*.log.tmp*; do
    if [[ -f "$running" && ( -z "$log" || "$running" -nt "$log" ) ]]; then log="$running"; fi
  done
  [[ -n "$log" ]] || log="$post_test_dir/Testing/Temporary/LastTest.log"
  print_skipped "" "$log"
  exit 0
fi
if [[ -n "$spec_only" ]]; then
  write_resource_spec "$spec_only" "$slots"
  exit
fi

[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a whole number >= 1, not '$jobs'"
[[ -d "$source_dir" ]] || die_usage "no source folder '$source_dir'"
source_dir="$(cd "$source_dir" && pwd)"
[[ -n "$build_dir" ]] || build_dir="$source_dir/build"
mkdir -p "$build_dir"
build_dir="$(cd "$build_dir" && pwd)"
[[ -n "$artifacts" ]] || artifacts="$build_dir/bankcheck-ci"
mkdir -p "$artifacts"
artifacts="$(cd "$artifacts" && pwd)"
if [[ -n "$sarif_dir" ]]; then
  mkdir -p "$sarif_dir"
  sarif_dir="$(cd "$sarif_dir" && pwd)"
  rm -f "$sarif_dir"/*.sarif  # our own, from an earlier run: a suite that no longer runs leaves none
fi
# The repository's root (else the source folder): what reports' paths are relative to, as GitHub
# places annotations and code scanning alerts, and the only folder whose files they read.
top="$(git -C "$source_dir" rev-parse --show-toplevel 2>/dev/null || echo "$source_dir")"
require_gpu=0
require_flag="${BANKCHECK_REQUIRE_GPU:-}"
case "${require_flag,,}" in  # an on/off switch, as the tests read it
  1 | true | yes | on) require_gpu=1 ;;
esac
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
# The commit the results name (each case's results fragment records it).
if [[ -z "${BANKCHECK_GIT_COMMIT:-}" ]] && command -v git >/dev/null 2>&1; then
  BANKCHECK_GIT_COMMIT="$(git -C "$source_dir" rev-parse HEAD 2>/dev/null || true)"
  [[ -z "$BANKCHECK_GIT_COMMIT" ]] || export BANKCHECK_GIT_COMMIT
fi

# An installed bankcheck: given, or the one this script belongs to (<prefix>/bin/bankcheck-ci).
if [[ -z "$prefix" ]] && compgen -G "$here/../lib*/cmake/bankcheck/bankcheckConfig.cmake" >/dev/null; then
  prefix="$(cd "$here/.." && pwd)"
fi
if [[ -n "$prefix" ]]; then
  [[ -d "$prefix" ]] || die_usage "no folder '$prefix' (--prefix)"
  prefix="$(cd "$prefix" && pwd)"
  export CMAKE_PREFIX_PATH="$prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi

# Our own files in the artifacts folder, from an earlier run (nothing else there is touched).
rm -rf "$artifacts/report.md" "$artifacts/report.txt" "$artifacts/results" "$artifacts/junit" \
  "$artifacts/ctest.log" "$artifacts/record.log" "$artifacts/baselines.patch" "$artifacts/plan"

# 1. Configure and build.
if ((prebuilt)); then
  [[ -f "$build_dir/CTestTestfile.cmake" ]] ||
    { warn "--prebuilt, but $build_dir holds no configured build (no CTestTestfile.cmake)"; exit 1; }
  say "using the prebuilt $build_dir as it is"
else
  say "configuring $source_dir in $build_dir"
  cmake -S "$source_dir" -B "$build_dir" "${cmake_args[@]}" ||
    { warn "configure failed (above)"; exit 1; }
  say "building with $jobs jobs"
  cmake --build "$build_dir" -j "$jobs" || { warn "build failed (above)"; exit 1; }
fi

# The bankcheck command: given; else the one the build was made with, as bankcheck_add_kernel_suite()
# names it in its .suite file (an installed package's, or the one a FetchContent of bankcheck built:
# BANKCHECK_CLI); else the installed package's, the one beside this script, on PATH, or the build
# folder's own (bankcheck's build).
if [[ -z "$cli" ]]; then
  built_cli="$(sed -n 's/^cli=//p' "$build_dir"/bankcheck-suites/*.suite 2>/dev/null | head -n 1 || true)"
  for candidate in "$built_cli" ${prefix:+"$prefix/bin/bankcheck"} "$here/bankcheck" "$(command -v bankcheck || true)" \
    "$build_dir/bin/bankcheck"; do
    if [[ -n "$candidate" && -x "$candidate" && ! -d "$candidate" ]]; then
      cli="$candidate"
      break
    fi
  done
fi
if [[ -z "$cli" ]]; then
  warn "no bankcheck command found: give --bankcheck FILE or --prefix DIR (an installed bankcheck), put" \
    "bankcheck on PATH, or build it with the project (FetchContent of bankcheck builds it where CLI11 is found or" \
    "may be downloaded; -DBANKCHECK_BUILD_CLI=ON insists)"
  exit 1
fi
[[ -x "$cli" ]] || { warn "'$cli' (--bankcheck) is not an executable"; exit 1; }
say "bankcheck command: $cli ($("$cli" --version 2>/dev/null || echo 'version unknown'))"

# The kernel suites, as bankcheck_add_kernel_suite() describes them in the build folder.
suites=() suite_baselines=() suite_results=() suite_prefixes=() suite_baseline_tests=()
for file in "$build_dir"/bankcheck-suites/*.suite; do
  [[ -f "$file" ]] || continue
  target="" baselines="" results="" test_prefix="" baseline_test=""
  while IFS= read -r line; do
    case "$line" in
      target=*) target="${line#*=}" ;;
      baselines_dir=*) baselines="${line#*=}" ;;
      results_dir=*) results="${line#*=}" ;;
      test_prefix=*) test_prefix="${line#*=}" ;;
      baseline_files_test=*) baseline_test="${line#*=}" ;;
    esac
  done <"$file"
  [[ -n "$target" && -n "$baselines" && -n "$results" ]] || { warn "$file is incomplete; skipping it"; continue; }
  suites+=("$target")
  # At run time BANKCHECK_BASELINES_DIR and BANKCHECK_RESULTS_DIR override every suite's folders.
  suite_baselines+=("${BANKCHECK_BASELINES_DIR:-$baselines}")
  suite_results+=("${BANKCHECK_RESULTS_DIR:-$results}")
  suite_prefixes+=("$test_prefix")
  suite_baseline_tests+=("$baseline_test")
done
if ((${#suites[@]} == 0)); then
  say "note: no kernel suite in $build_dir (bankcheck_add_kernel_suite): running the tests, no report"
fi

# Results of an earlier run must not be merged in; nor JUnit XML of tests that no longer exist.
for results in "${suite_results[@]}"; do
  for folder in "$results" "$results-emulated"; do
    [[ -L "$folder/cases" ]] || rm -rf "$folder/cases"
    rm -f "$folder/results.json"
  done
done
rm -rf "$build_dir/test-results/junit"
rm -f "$build_dir/Testing/Temporary/LastTestsFailed.log"

# 2. ctest.
spec="$build_dir/ctest-resources.json"
write_resource_spec "$spec" "$slots" || exit 2
echo
if ((spec_gpus > 0)); then
  gpu_tests="$slots GPU tests at a time on each of $spec_gpus GPU(s)"
else
  gpu_tests="no GPU found (CUDA_VISIBLE_DEVICES, nvidia-smi -L): the GPU tests run to skip or fail"
fi
say "ctest with $jobs jobs, $gpu_tests ($spec); a GPU is" \
  "$( ((require_gpu)) && echo "required (BANKCHECK_REQUIRE_GPU=1)" || echo "not required")"
status=0
set +e
# It prints the skipped tests itself, from ctest's console: the build's CTestCustom.cmake does not.
BANKCHECK_PRINT_SKIPPED=0 ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$jobs" \
  --resource-spec-file "$spec" "${ctest_args[@]}" 2>&1 | tee "$artifacts/ctest.log"
status=${PIPESTATUS[0]}
set -e
print_skipped "$artifacts/ctest.log" "$build_dir/Testing/Temporary/LastTest.log" | tee -a "$artifacts/ctest.log"
failed_tests=()
if [[ -f "$build_dir/Testing/Temporary/LastTestsFailed.log" ]]; then
  mapfile -t failed_tests < <(sed 's/^[0-9]*://' "$build_dir/Testing/Temporary/LastTestsFailed.log")
fi

# Why GPU tests skipped or failed without a GPU: the first test that said so.
last_log="$build_dir/Testing/Temporary/LastTest.log"
no_gpu_skip="" no_gpu_required=""
if [[ -f "$last_log" ]]; then
  no_gpu_skip="$(grep -m1 -oE 'GPU test skipped, no usable GPU: .*' "$last_log" || true)"
  no_gpu_required="$(grep -m1 -oE 'BANKCHECK_REQUIRE_GPU=1 is set but there is no usable GPU: .*' "$last_log" || true)"
fi

# 3. and 4. Results, reports, artifacts.
mkdir -p "$artifacts/results"
if [[ -d "$build_dir/test-results/junit" ]]; then
  cp -R "$build_dir/test-results/junit" "$artifacts/junit"
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-ci.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [[ -n "${GTEST_TOTAL_SHARDS:-}" ]]; then
  write_shard_plan || status=1
fi
: >"$artifacts/report.md"
: >"$artifacts/report.txt"
counts_changed=0
report_failed=0
gate_failed=()
reported=()
emulated_record=()  # merged emulated results that --emulated-baselines records from, "<index> <file>"
# Case totals over every program's report, for the one summary line: measured and emulated.
declare -A cases_total=([measured]=0 [emulated]=0) cases_passed=([measured]=0 [emulated]=0)
declare -A cases_failed=([measured]=0 [emulated]=0) cases_skipped=([measured]=0 [emulated]=0)
max_bytes=$((900000 / (${#suites[@]} > 0 ? 2 * ${#suites[@]} : 1)))  # the job summary holds 1 MiB

for i in "${!suites[@]}"; do
  suite="${suites[i]}" results="${suite_results[i]}"
  # Suites that share a results folder (BANKCHECK_RESULTS_DIR) are merged and reported once.
  [[ " ${reported[*]} " != *" $results "* ]] || continue
  reported+=("$results")
  # Each program that ran: the GPU program (<RESULTS_DIR>) and the emulated one (<RESULTS_DIR>-emulated).
  # Both are reported; the line findings (annotations, SARIF) come from the measured cases where the
  # GPU program measured any, else from the emulated program: one finding per line, never two.
  program_ran=0 any=0
  if compgen -G "$results/cases/*.json" >/dev/null; then
    any=1
    report_program "$i" measured "$results" 1 || status=1
  fi
  if compgen -G "$results-emulated/cases/*.json" >/dev/null; then
    any=1
    report_program "$i" emulated "$results-emulated" $((program_ran == 0)) || status=1
  fi
  ((any)) || say "suite $suite: no case ran (no results in $results/cases nor $results-emulated/cases)"
done
((report_failed == 0)) || status=1
if ((${#gate_failed[@]} > 0)); then
  warn "bankcheck report fails some case of: ${gate_failed[*]} (above)"
  status=1
fi

# 5. New baselines (bankcheck-ci-baselines.sh).
write_baselines_patch

# One line for both programs' cases, which the reports above break down, and the tests ctest ran.
cases_line="cases measured on the GPU: ${cases_total[measured]} (${cases_passed[measured]} passed,"
cases_line+=" ${cases_failed[measured]} failed, ${cases_skipped[measured]} skipped); emulated: ${cases_total[emulated]}"
cases_line+=" (${cases_passed[emulated]} passed, ${cases_failed[emulated]} failed, ${cases_skipped[emulated]} skipped)"

# The job summary: the reports, then what the run came to.
{
  echo
  if ((status != 0)); then
    echo "**bankcheck-ci: failed.** ${#failed_tests[@]} test(s) failed; $cases_line${failed_tests[*]:+. Failed tests:}"
    for test in "${failed_tests[@]}"; do echo "- \`${test//\`/}\`"; done
  elif [[ -n "$no_gpu_skip" ]]; then
    echo "**bankcheck-ci: passed, without a GPU.** The CPU checks passed; the GPU tests were skipped, as no"
    echo "usable GPU was found (the reason is in the job's log). $cases_line."
  else
    echo "**bankcheck-ci: passed.** $cases_line."
  fi
  if [[ -n "$no_gpu_required" ]]; then
    echo
    echo "No usable GPU on this runner, and a GPU is required (BANKCHECK_REQUIRE_GPU=1): the reason is in the job's log."
  fi
  if [[ -n "$patch_note" ]]; then
    echo
    echo "New baselines: \`baselines.patch\` in the job's artifacts. $patch_note"
  fi
} >>"$artifacts/report.md"
if [[ -n "$summary" ]]; then
  cat "$artifacts/report.md" >>"$summary" || warn "could not append the report to $summary"
fi

echo
if [[ -n "$no_gpu_required" ]]; then
  warn "a GPU is required (BANKCHECK_REQUIRE_GPU=1) but there is no usable GPU: ${no_gpu_required#*no usable GPU: }"
elif [[ -n "$no_gpu_skip" ]]; then
  say "no usable GPU on this machine: ${no_gpu_skip#*no usable GPU: }"
  say "the GPU tests were skipped and only the CPU checks ran; on a GPU runner give --require-gpu" \
    "(BANKCHECK_REQUIRE_GPU=1) so that this fails"
fi
written=""
for name in report.md report.txt results junit ctest.log record.log baselines.patch; do
  [[ ! -e "$artifacts/$name" ]] || written+="${written:+, }$name"
done
say "artifacts in $artifacts: $written"
if ((status != 0)); then
  warn "failed: ${#failed_tests[@]} test(s) failed${failed_tests[*]:+: ${failed_tests[*]}}; $cases_line"
  exit 1
fi
if [[ -n "$no_gpu_skip" ]]; then
  say "passed without a GPU: the CPU checks passed, the GPU tests skipped; $cases_line"
else
  say "passed; $cases_line"
fi
