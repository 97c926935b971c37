#!/usr/bin/env bash
# Fuzzes the emulator for a bounded time (docs/emulate.md, "Hostile input"): builds
# framework/emulate/emulate_fuzz.cc with clang, libFuzzer, ASan and UBSan (-DBANKCHECK_FUZZ=ON, in
# build-fuzz/: the core and the emulator only, no CUDA) and runs it from the seed listings in
# framework/emulate/fuzz_corpus/ for BANKCHECK_FUZZ_SECONDS (60): each input's kernels through
# Module::FromListings, Emulate and the output pass (ComputeOutputs, against memory the harness knows). A crash, a sanitizer report, an
# exception other than bankcheck::Error or an input slower than 10 s fails it, leaving the input
# in build-fuzz/ (replay: build-fuzz/framework/emulate/bankcheck_emulate_fuzz <file>). Without
# clang++ it prints a note and passes; BANKCHECK_CLANG names the compiler to use.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
build="${BANKCHECK_FUZZ_BUILD_DIR:-$BANKCHECK_ROOT/build-fuzz}"
seconds="${BANKCHECK_FUZZ_SECONDS:-60}"

bankcheck_find_clang
if [[ -z "$clang" ]]; then
  echo "bankcheck: note: no clang++ found, so the emulator was not fuzzed (install clang: ci/jobs/fuzz.sh)"
  exit 0
fi

mkdir -p "$build"
cmake -S "$BANKCHECK_ROOT" -B "$build" -DCMAKE_CXX_COMPILER="$clang" -DBANKCHECK_FUZZ=ON \
  -DBANKCHECK_ENABLE_CUDA=OFF -DBANKCHECK_BUILD_TESTS=OFF -DBANKCHECK_BUILD_BENCHMARKS=OFF \
  -DBANKCHECK_BUILD_CLI=OFF -DBANKCHECK_INSTALL=OFF -DBANKCHECK_WERROR=ON >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; echo "bankcheck (fuzz): configure failed" >&2; exit 1; }
cmake --build "$build" --target bankcheck_emulate_fuzz -j "$JOBS"

# The corpus grows in a scratch copy: the seeds in the tree stay as committed.
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
cp "$BANKCHECK_ROOT"/framework/emulate/fuzz_corpus/* "$corpus"/
"$build/framework/emulate/bankcheck_emulate_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/" "$corpus" 2>"$build/fuzz.log" ||
  { tail -60 "$build/fuzz.log"; echo "bankcheck (fuzz): the emulator failed on a crafted input (above; kept in $build/)" >&2; exit 1; }
grep -E '^stat::number_of_executed_units' "$build/fuzz.log" | sed 's/^/bankcheck (fuzz): /'
echo "bankcheck (fuzz): no crash, sanitizer report or hang in ${seconds} s of crafted listings"
