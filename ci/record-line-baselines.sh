#!/usr/bin/env bash
# Records this repository's baselines with per-line counts (baseline format version 2) on a GPU
# machine, and checks that the recording only added lines: every case's launch totals as committed,
# every launch with its "lines", and a check run that compares them line by line passes.
#
#   ci/record-line-baselines.sh          (on the GPU the baselines are for: baselines/sm_90 = an H100/H200)
#
# Prints, per baseline file, `bankcheck compare`'s text (expected: 0 regressed, 0 improved, 0 changed),
# then "every launch has lines", then the check run's ctest summary; exits non-zero on any difference.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BANKCHECK_ROOT"
arch=sm_90
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
mkdir -p "$old/$arch"
for file in baselines/$arch/*.json; do git show "HEAD:$file" >"$old/$arch/$(basename "$file")"; done

BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_REQUIRE_GPU=1 ci/test.sh -R '^KernelSuite/'

bankcheck="$BUILD_DIR/bin/bankcheck"
status=0
for file in baselines/$arch/*.json; do
  # The old files have no lines, so each case compares by its launch totals: all must match.
  "$bankcheck" compare --all --format text "$old/$arch/$(basename "$file")" "$file" || status=1
done
python3 - "baselines/$arch" <<'PY' || status=1
import json, pathlib, sys
bad = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    document = json.loads(path.read_text())
    if document["version"] != 2:
        bad.append(f"{path}: version {document['version']}")
    for name, case in document["cases"].items():
        for i, launch in enumerate(case["launches"]):
            if "lines" not in launch:
                bad.append(f"{path}: {name} launch {i} has no lines")
print("\n".join(bad) if bad else "every launch has lines")
sys.exit(1 if bad else 0)
PY
# Checking now attributes every case (its baseline has lines) and compares it line by line.
BANKCHECK_REQUIRE_GPU=1 ci/test.sh -R '^KernelSuite/' || status=1
exit $status
