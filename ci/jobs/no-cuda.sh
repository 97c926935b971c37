#!/usr/bin/env bash
# The C++ core and the CLI without the GPU side (-DBANKCHECK_ENABLE_CUDA=OFF): configured and built
# with nvcc off PATH (and no CUDA variables), so nothing can find the toolkit; the CLI must link no
# CUDA library and answer the model and report commands.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
build="${BANKCHECK_NO_CUDA_BUILD_DIR:-$BANKCHECK_ROOT/build-no-cuda}"
# Every PATH folder named for CUDA or holding an nvcc (a wrapper such as /usr/local/bin/nvcc too).
path_without_cuda=""
IFS=: read -ra path_dirs <<<"$PATH"
for dir in "${path_dirs[@]}"; do
  [[ "${dir,,}" == *cuda* || -e "$dir/nvcc" ]] && continue
  path_without_cuda+="${path_without_cuda:+:}$dir"
done
werror=OFF
[[ "${CI:-}" == "true" ]] && werror=ON
run() { env -u CUDACXX -u CUDA_PATH -u CUDA_HOME PATH="$path_without_cuda" "$@"; }
! run sh -c 'command -v nvcc' >/dev/null || { echo "bankcheck (no CUDA): nvcc is still on PATH" >&2; exit 1; }
# Debug (-O0): what this job checks (configured, built and linked without the toolkit, the CLI's
# libraries, its answers) does not depend on optimization, and -O0 compiles in half the time; the
# optimized build of the same code is ci/test.sh's.
run cmake -S "$BANKCHECK_ROOT" -B "$build" -DBANKCHECK_ENABLE_CUDA=OFF -DBANKCHECK_WERROR="$werror" -DCMAKE_BUILD_TYPE=Debug \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; echo "bankcheck (no CUDA): configure failed" >&2; exit 1; }
run cmake --build "$build" -j "$JOBS"
cli="$build/bin/bankcheck"
if ldd "$cli" | grep -i -E 'cuda|cupti|nvperf'; then
  echo "bankcheck (no CUDA): the CLI links a CUDA library (above)" >&2
  exit 1
fi
"$cli" --version
"$cli" predict --op lds --bytes 4 --stride 2 --json
"$cli" explain --op sts --bytes 4 --stride 32 >/dev/null
echo "bankcheck (no CUDA): core and CLI built without the CUDA toolkit; the CLI links no CUDA library"
