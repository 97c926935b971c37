#!/usr/bin/env bash
# For GPU CI runners: the main job with a GPU required, so a runner that lost its GPU, its driver
# or its counter permission fails instead of skipping. Outputs, for artifacts:
#   build/results/results.json, build/results/report.md, build/results/junit/*.xml
# and the Markdown report appended to $GITHUB_STEP_SUMMARY when that is set (GitHub Actions).
set -euo pipefail
export BANKCHECK_REQUIRE_GPU=1
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" "$@"
