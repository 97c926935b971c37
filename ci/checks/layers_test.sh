#!/usr/bin/env bash
# Tests ci/checks/layers.py on planted trees: a tree that keeps the rules passes; a source over 500 lines
# (a test too), the core including CUDA, CUPTI, another layer's internals or its public header, and
# the CLI including the CUDA layer's or the suite's, and gtest-spi outside tests and the testing
# layer's seam, each fail naming the file and line; data under
# testdata/ is not source; a folder without framework/ is a usage error.
set -euo pipefail
check="$(dirname "${BASH_SOURCE[0]}")/layers.py"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-layers.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

# tree: a fresh planted tree at $dir/t that keeps every rule.
tree() {
  rm -rf "$dir/t"
  mkdir -p "$dir/t/framework/"{core/internal,cli,cuda/internal,suite/internal,include/bankcheck,core/testdata}
  echo 'bankcheck_public_headers(bankcheck_core
  error.h)  # the core' >"$dir/t/framework/core/CMakeLists.txt"
  echo 'bankcheck_public_headers(bankcheck_cuda gpu_probe.h)' >"$dir/t/framework/cuda/CMakeLists.txt"
  printf '#include "bankcheck/error.h"\n#include "core/internal/x.h"\n#include <vector>\n' >"$dir/t/framework/core/a.cc"
  printf '#include <string>\n' >"$dir/t/framework/include/bankcheck/error.h"
  printf '#include <cuda_runtime.h>\n#include "bankcheck/error.h"\n' >"$dir/t/framework/include/bankcheck/gpu_probe.h"
  printf '#include "bankcheck/error.h"\n#include "core/internal/x.h"\n' >"$dir/t/framework/cli/main.cc"
  printf '#include <cupti.h>\n#include "suite/internal/s.h"\n#include "bankcheck/gpu_probe.h"\n' \
    >"$dir/t/framework/cuda/probe.cc"
  seq 500 >"$dir/t/framework/cuda/long_test.cc"
  seq 900 >"$dir/t/framework/core/testdata/fixture.inc"
}

tree
expect 0 "layers: 6 source files under framework/, none over 500 lines" python3 "$check" "$dir/t"
tree
seq 501 >"$dir/t/framework/core/long_test.cc"
expect 1 "framework/core/long_test.cc: 501 lines, over 500: split it by theme" python3 "$check" "$dir/t"
tree
seq 501 >"$dir/t/framework/suite/internal/long.h"
expect 1 "framework/suite/internal/long.h: 501 lines" python3 "$check" "$dir/t"
tree
echo '#include <cuda_runtime_api.h>' >>"$dir/t/framework/core/a.cc"
expect 1 "framework/core/a.cc:4: includes <cuda_runtime_api.h>: framework/core knows nothing of CUDA or CUPTI" \
  python3 "$check" "$dir/t"
tree
echo '#include <cupti_target.h>' >>"$dir/t/framework/include/bankcheck/error.h"
expect 1 "framework/include/bankcheck/error.h:2: includes <cupti_target.h>" python3 "$check" "$dir/t"
tree
echo '#include "cuda/internal/launch_log.h"' >>"$dir/t/framework/core/a.cc"
expect 1 "a.cc:4: includes \"cuda/internal/launch_log.h\": framework/core may not use the internals of the cuda layer" \
  python3 "$check" "$dir/t"
tree
echo '#include "suite/internal/case_runner.h"' >"$dir/t/framework/core/internal/x.h"
expect 1 "framework/core/internal/x.h:1: includes \"suite/internal/case_runner.h\"" python3 "$check" "$dir/t"
tree
echo '#include "bankcheck/gpu_probe.h"' >>"$dir/t/framework/core/a.cc"
expect 1 "framework/core may not use the cuda layer's public header" python3 "$check" "$dir/t"
tree
echo '#include "cuda/internal/launch_log.h"' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes \"cuda/internal/launch_log.h\": framework/cli may not use the internals" \
  python3 "$check" "$dir/t"
tree
echo '#include "suite/internal/case_runner.h"' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes \"suite/internal/case_runner.h\"" python3 "$check" "$dir/t"
tree
echo '#include <cuda.h>' >>"$dir/t/framework/cli/main.cc"
expect 1 "framework/cli/main.cc:3: includes <cuda.h>" python3 "$check" "$dir/t"
# gtest-spi: in a test, and in the testing layer's one seam, not elsewhere.
tree
mkdir -p "$dir/t/framework/testing" "$dir/t/framework/suite"
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/testing/held_results.cc"
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/suite/runner_test.cc"
expect 0 "gtest-spi only in tests" python3 "$check" "$dir/t"
echo '#include <gtest/gtest-spi.h>' >"$dir/t/framework/suite/runner.cc"
expect 1 "framework/suite/runner.cc:1: includes <gtest/gtest-spi.h>: only tests may" python3 "$check" "$dir/t"
# Every problem is named, and counted.
tree
seq 600 >"$dir/t/framework/cli/main_test.cc"
echo '#include <cuda.h>' >>"$dir/t/framework/core/a.cc"
expect 1 "layers: 2 problem(s) in 7 source files" python3 "$check" "$dir/t"
expect 2 "no framework/ folder" python3 "$check" "$dir/missing"

expect_done ci/checks/layers_test.sh
