#!/usr/bin/env bash
# Tests ci/checks/layers.py on planted trees: a tree that keeps the rules passes; a source over 500
# lines (a test too); a layer including CUDA or CUPTI where it may not, a layer it does not build on
# (public header or source tree), another layer's non-public header (allowed only where the check
# says why), a core internal/ header from outside the core, a non-installed header from a public
# one, GoogleTest in an installed layer's library (not in its tests), and gtest-spi outside tests
# and the testing layer's seam: each fails naming the file and line; data under testdata/ is not
# source; a folder without framework/ is a usage error.
set -euo pipefail
check="$(dirname "${BASH_SOURCE[0]}")/layers.py"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-layers.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

# tree: a fresh planted tree at $dir/t that keeps every rule.
tree() {
  rm -rf "$dir/t"
  local f="$dir/t/framework"
  mkdir -p "$f/"{core/platform/internal,core/model/testdata,cli,cuda/internal,suite/internal,testing/internal} \
    "$f/"{inject,emulate/internal,emulated_runtime,include/bankcheck/core,include/bankcheck/cuda}
  printf '#include "bankcheck/core/error.h"\n#include "core/platform/internal/x.h"\n#include <vector>\n' \
    >"$f/core/platform/a.cc"
  printf '#include <string>\n' >"$f/include/bankcheck/core/error.h"
  printf '#include <cuda_runtime.h>\n#include "bankcheck/core/error.h"\n' >"$f/include/bankcheck/cuda/gpu_probe.h"
  printf '#include "bankcheck/core/error.h"\n#include "core/platform/file_io.h"\n' >"$f/cli/main.cc"
  printf '#include <cupti.h>\n#include "cuda/internal/log.h"\n#include "bankcheck/cuda/gpu_probe.h"\n' \
    >"$f/cuda/probe.cc"
  printf '#include "cuda/internal/launch_observer.h"\n#include "bankcheck/cuda/gpu_probe.h"\n' >"$f/inject/inject.cc"
  printf '#include "emulate/internal/sm.h"\n#include "bankcheck/core/error.h"\n' >"$f/emulated_runtime/capture.cc"
  printf '#include <gtest/gtest.h>\n#include "core/platform/test_support.h"\n' >"$f/core/platform/a_test.cc"
  seq 500 >"$f/cuda/long_test.cc"
  seq 900 >"$f/core/model/testdata/fixture.inc"
}

tree
expect 0 "layers: 9 source files under framework/, none over 500 lines" python3 "$check" "$dir/t"
tree
seq 501 >"$dir/t/framework/core/platform/long_test.cc"
expect 1 "framework/core/platform/long_test.cc: 501 lines, over 500: split it by theme" python3 "$check" "$dir/t"
tree
seq 501 >"$dir/t/framework/suite/internal/long.h"
expect 1 "framework/suite/internal/long.h: 501 lines" python3 "$check" "$dir/t"
# CUDA and CUPTI: not in the core (its public headers too), the CLI or the emulator.
tree
echo '#include <cuda_runtime_api.h>' >>"$dir/t/framework/core/platform/a.cc"
expect 1 "framework/core/platform/a.cc:4: includes <cuda_runtime_api.h>: framework/core knows nothing of CUDA" \
  python3 "$check" "$dir/t"
tree
echo '#include <cupti_target.h>' >>"$dir/t/framework/include/bankcheck/core/error.h"
expect 1 "framework/include/bankcheck/core/error.h:2: includes <cupti_target.h>" python3 "$check" "$dir/t"
tree
echo '#include <cuda.h>' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes <cuda.h>" python3 "$check" "$dir/t"
tree
echo '#include <cuda.h>' >"$dir/t/framework/emulate/sm.cc"
expect 1 "framework/emulate/sm.cc:1: includes <cuda.h>: framework/emulate knows nothing of CUDA" python3 "$check" "$dir/t"
# A layer it does not build on, by its source tree or its public header.
tree
echo '#include "cuda/internal/launch_log.h"' >>"$dir/t/framework/core/platform/a.cc"
expect 1 "a.cc:4: includes \"cuda/internal/launch_log.h\": framework/core may not use the cuda layer" \
  python3 "$check" "$dir/t"
tree
echo '#include "suite/internal/case_runner.h"' >"$dir/t/framework/core/platform/internal/x.h"
expect 1 "framework/core/platform/internal/x.h:1: includes \"suite/internal/case_runner.h\"" python3 "$check" "$dir/t"
tree
echo '#include "bankcheck/cuda/gpu_probe.h"' >>"$dir/t/framework/core/platform/a.cc"
expect 1 "framework/core may not use the cuda layer" python3 "$check" "$dir/t"
tree
echo '#include "suite/internal/case_runner.h"' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes \"suite/internal/case_runner.h\": framework/cli may not use the suite layer" \
  python3 "$check" "$dir/t"
tree
echo '#include "bankcheck/emulate/emulator.h"' >>"$dir/t/framework/cuda/probe.cc"
expect 1 "framework/cuda/probe.cc:4: includes \"bankcheck/emulate/emulator.h\": framework/cuda may not use the emulate layer" \
  python3 "$check" "$dir/t"
tree
echo '#include "suite/internal/case_runner.h"' >>"$dir/t/framework/inject/inject.cc"
expect 1 "framework/inject may not use the suite layer" python3 "$check" "$dir/t"
# A test may use what its layer's tests measure through; the library may not.
tree
echo '#include "bankcheck/testing/testing.h"' >"$dir/t/framework/cuda/session_test.cc"
expect 0 "" python3 "$check" "$dir/t"
echo '#include "bankcheck/testing/testing.h"' >"$dir/t/framework/cuda/session.cc"
expect 1 "framework/cuda/session.cc:1: includes \"bankcheck/testing/testing.h\": framework/cuda may not use the testing layer" \
  python3 "$check" "$dir/t"
# Another layer's non-public headers: only where INTERNALS says why.
tree
echo '#include "cuda/internal/launch_log.h"' >"$dir/t/framework/testing/testing.cc"
expect 1 "framework/testing may not use the cuda layer's non-public headers" python3 "$check" "$dir/t"
tree
echo '#include "emulate/internal/sm.h"' >"$dir/t/framework/suite/runner.cc"
expect 1 "framework/suite may not use the emulate layer" python3 "$check" "$dir/t"
# The core's internal/ headers: the core's alone; the top of its rooms is for every layer.
tree
echo '#include "core/platform/internal/x.h"' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes \"core/platform/internal/x.h\": framework/cli may not use the core's internal/" \
  python3 "$check" "$dir/t"
tree
echo '#include "core/reports/internal/markdown.h"' >>"$dir/t/framework/emulated_runtime/capture.cc"
expect 1 "framework/emulated_runtime/capture.cc:3" python3 "$check" "$dir/t"
# Public headers include installed headers only.
tree
echo '#include "core/platform/file_io.h"' >>"$dir/t/framework/include/bankcheck/core/error.h"
expect 1 "framework/include/bankcheck/core/error.h:2: includes \"core/platform/file_io.h\": framework/core is a public header" \
  python3 "$check" "$dir/t"
# GoogleTest: in the tests of a layer installed compiled, not in its library.
tree
echo '#include <gmock/gmock.h>' >>"$dir/t/framework/cuda/probe.cc"
expect 1 "framework/cuda/probe.cc:4: includes <gmock/gmock.h>: framework/cuda is installed compiled" \
  python3 "$check" "$dir/t"
# gtest-spi: in a test, and in the testing layer's one seam, not elsewhere.
tree
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/testing/held_results.cc"
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/suite/runner_test.cc"
expect 0 "gtest-spi only in tests" python3 "$check" "$dir/t"
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/suite/runner.cc"
expect 1 "framework/suite/runner.cc:1: includes <gtest/gtest-spi.h>: only tests may" python3 "$check" "$dir/t"
# Every problem is named, and counted.
tree
seq 600 >"$dir/t/framework/cli/main_test.cc"
echo '#include <cuda.h>' >>"$dir/t/framework/core/platform/a.cc"
expect 1 "layers: 2 problem(s) in 10 source files" python3 "$check" "$dir/t"
expect 2 "no framework/ folder" python3 "$check" "$dir/missing"

expect_done ci/checks/layers_test.sh
