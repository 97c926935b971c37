#!/usr/bin/env bash
# A plain `ctest` in a build where bankcheck_add_kernel_suite() or bankcheck_add_gpu_test() ran ends
# with its skipped tests under their reasons (CTestCustom.cmake runs bankcheck-ci --ctest-post-test):
# a test skipped by its exit code and one skipped by GoogleTest's "[  SKIPPED ]" are listed, one
# whose skip gave no message as giving no reason, a GoogleTest program whose other tests passed is not; BANKCHECK_PRINT_SKIPPED=0 prints nothing (what
# bankcheck-ci and ci/test.sh set, as they print the list themselves); a project's own
# CTestCustom.cmake is left as it is.
#   bankcheck-ci-post-test_test.sh <bankcheck's source folder> <cmake> <ctest>
set -euo pipefail
source_dir="$1" cmake="$2" ctest="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $1" >&2
  exit 1
}

mkdir -p "$work/project"
cat >"$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(post_test NONE)
enable_testing()
include([==[$source_dir/cmake/BankcheckKernelSuite.cmake]==])
add_test(NAME by_exit_code COMMAND sh -c "echo 'skipped: no usable GPU (exit code)'; exit 77")
set_tests_properties(by_exit_code PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME by_gtest COMMAND sh -c "printf '[ RUN      ] A.B\\\\nx.cc:3: Skipped\\\\nGPU test skipped, no usable GPU: none\\\\n[  SKIPPED ] A.B (0 ms)\\\\n'")
_bankcheck_gtest_skip_expression(skip_expression)
set_tests_properties(by_gtest PROPERTIES SKIP_REGULAR_EXPRESSION "\${skip_expression}")
add_test(NAME partly COMMAND sh -c "printf '[ RUN      ] A.C\\\\n[       OK ] A.C\\\\n[ RUN      ] A.B\\\\nx.cc:3: Skipped\\\\nnot this one\\\\n[  SKIPPED ] A.B (0 ms)\\\\n'")
add_test(NAME no_message COMMAND sh -c "printf '[ RUN      ] A.D\\\\nx.cc:9: Skipped\\\\n'; exit 77")
set_tests_properties(no_message PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME passes COMMAND true)
_bankcheck_print_skipped_after_ctest()
CMAKE

"$cmake" -S "$work/project" -B "$work/build" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
(cd "$work/build" && env -u BANKCHECK_PRINT_SKIPPED "$ctest") >"$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "ctest"; }
cat "$work/ctest.log"
grep -q '\*\*\*Skipped' "$work/ctest.log" || fail "ctest skipped nothing: the test project is wrong"
grep -qx 'Skipped 1 test(s): no usable GPU (exit code)' "$work/ctest.log" || fail "the exit-code skip's reason is missing"
grep -qx 'Skipped 1 test(s): GPU test skipped, no usable GPU: none' "$work/ctest.log" ||
  fail "the GoogleTest skip's reason is missing"
grep -qx '    by_gtest' "$work/ctest.log" || fail "by_gtest is not listed under its reason"
grep -qxF "Skipped 1 test(s): no reason printed (ctest -V -R '^no_message\$' shows its output)" "$work/ctest.log" ||
  fail "a GoogleTest skip without a message is not listed as giving no reason"
! grep -q 'Skipped 1 test(s): <end of output>' "$work/ctest.log" || fail "ctest's log marker was taken for a reason"
! grep -q 'not this one\|^    partly$\|^    passes$' "$work/ctest.log" || fail "a test that passed is listed as skipped"

(cd "$work/build" && BANKCHECK_PRINT_SKIPPED=0 "$ctest") >"$work/quiet.log" 2>&1 || fail "ctest (quiet)"
! grep -q '^Skipped ' "$work/quiet.log" || fail "BANKCHECK_PRINT_SKIPPED=0 still printed the list"

echo 'set(CTEST_CUSTOM_MAXIMUM_NUMBER_OF_WARNINGS 10)' >"$work/build/CTestCustom.cmake"
"$cmake" -S "$work/project" -B "$work/build" >"$work/configure.log" 2>&1 || fail "configure again"
[[ "$(cat "$work/build/CTestCustom.cmake")" == 'set(CTEST_CUSTOM_MAXIMUM_NUMBER_OF_WARNINGS 10)' ]] ||
  fail "the project's own CTestCustom.cmake was replaced"
grep -q -- '--ctest-post-test' "$work/build/bankcheck-ctest-custom.cmake" || fail "bankcheck-ctest-custom.cmake is missing"
echo "PASS: plain ctest ends with the skipped tests under their reasons"
