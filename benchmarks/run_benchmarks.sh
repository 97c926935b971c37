#!/usr/bin/env bash
# run_benchmarks.sh [BUILD_DIR [OUT_DIR]]: what bank conflicts cost in time.
#
# Runs the three GPU benchmark programs (BUILD_DIR/benchmarks/) with JSON output to
# OUT_DIR/<program>.json, then bankcheck_benchmark_plot (BUILD_DIR/benchmarks/, from plot/) to draw
# OUT_DIR/conflict-cost.svg and print the table of relative times and transpose bandwidth.
# About a minute on an H100.
#
# Arguments or environment: BUILD_DIR (default: build), OUT_DIR (default: BUILD_DIR/benchmark-results),
# REPETITIONS (default 5: medians of 5), MIN_TIME (seconds per repetition, default 0.1).
# Programs built against Debian's libbenchmark need libbenchmark.so.1debian: where it is not
# installed, put a copy in a folder on LD_LIBRARY_PATH.
set -euo pipefail

build_dir="${1:-${BUILD_DIR:-build}}"
out_dir="${2:-${OUT_DIR:-$build_dir/benchmark-results}}"
repetitions="${REPETITIONS:-5}"
min_time="${MIN_TIME:-0.1}"

die() { echo "run_benchmarks.sh: $*" >&2; exit 1; }

plot="$build_dir/benchmarks/bankcheck_benchmark_plot"
[[ -x "$plot" ]] || die "$plot not found; build the bankcheck_benchmark_plot target (or pass the build folder)"
mkdir -p "$out_dir"

jsons=()
for program in shared_stride_benchmark transpose_benchmark puzzle_benchmark; do
  binary="$build_dir/benchmarks/$program"
  [[ -x "$binary" ]] || die "$binary not found; build the $program target first"
  json="$out_dir/$program.json"
  rm -f "$json"
  echo "== $program" >&2
  "$binary" --benchmark_format=console --benchmark_out_format=json --benchmark_out="$json" \
    --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
    --benchmark_min_time="$min_time" || die "$program failed (exit status $?)"
  # Without a usable GPU the programs say why and exit 0 without writing anything.
  [[ -s "$json" ]] || die "$program wrote no results (no usable GPU? see its message above)"
  jsons+=("$json")
done

"$plot" "${jsons[@]}" -o "$out_dir/conflict-cost.svg"
echo "results: ${jsons[*]}" >&2
