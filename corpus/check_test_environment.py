#!/usr/bin/env python3
"""The corpus's topic tests, GPU and emulated, carry their own results and baselines folders
(TEST_ENVIRONMENT, corpus/CMakeLists.txt), so that a BANKCHECK_RESULTS_DIR or
BANKCHECK_BASELINES_DIR exported for the kernel suite (ci/test.sh, ci/jobs/emulate.sh,
ci/jobs/shard-check.sh) never sends the corpus's results into the kernel suite's folder nor checks it
against the kernel suite's baselines.

  check_test_environment.py CTEST BUILD_DIR RESULTS_DIR BASELINES_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def list_tests(ctest, build_dir):
    """ctest's listing of the corpus's tests, from a copy of the build folder's CTestTestfile.cmake
    files: a ctest in the build folder itself, even --show-only, writes Testing/Temporary/LastTest.log
    there, over the log of the ctest run this test is part of (whose skip reasons are read from it)."""
    with tempfile.TemporaryDirectory() as listing_dir:
        for folder, _, files in os.walk(build_dir):
            if "CTestTestfile.cmake" in files:
                copy = os.path.join(listing_dir, os.path.relpath(folder, build_dir))
                os.makedirs(copy, exist_ok=True)
                shutil.copy(os.path.join(folder, "CTestTestfile.cmake"), copy)
        return subprocess.run([ctest, "--test-dir", listing_dir, "--show-only=json-v1", "-R", "^Corpus/"],
                              check=True, capture_output=True, text=True).stdout


def main(ctest, build_dir, results_dir, baselines_dir):
    listing = list_tests(ctest, build_dir)
    tests = json.loads(listing)["tests"]
    wanted = {f"BANKCHECK_RESULTS_DIR={results_dir}", f"BANKCHECK_BASELINES_DIR={baselines_dir}"}
    gpu = emulated = 0
    problems = []
    for test in tests:
        name = test["name"]
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = properties.get("LABELS", [])
        if "gpu" not in labels and "emulate" not in labels:
            continue  # the CPU checks (Corpus/model/..., Corpus.baseline_files) read no such variable
        gpu += "gpu" in labels
        emulated += "emulate" in labels
        missing = wanted - set(properties.get("ENVIRONMENT", []))
        if missing:
            problems.append(f"{name}: its environment lacks {sorted(missing)}")
    if gpu == 0 or emulated == 0:
        problems.append(f"expected GPU and emulated topic tests of the corpus, found {gpu} and {emulated}")
    for problem in problems:
        print(problem)
    print(f"{gpu} GPU and {emulated} emulated corpus topic tests checked")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
