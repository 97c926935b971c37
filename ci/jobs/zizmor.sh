#!/usr/bin/env bash
# zizmor (the static analyzer of GitHub Actions workflows, docs.zizmor.sh) over .github/workflows:
# fails on any finding above informational (low, medium, high), prints every finding. Offline
# audits only, and no configuration file: nothing in the repository can switch an audit off, only a
# `# zizmor: ignore[<audit>]` comment on the line itself, which review sees.
# zizmor comes from PyPI, its version and wheels' hashes pinned in ci/requirements/zizmor-requirements.txt,
# into a venv at <build folder>/zizmor-venv (made again when the pin changes). Without PyPI it says
# the check was not run and exits 0, except in CI (CI=true), where that fails.
#
#   ci/jobs/zizmor.sh [PATH...]   default: .github/workflows
# Exit 0: nothing above informational; 1: a finding above it, or zizmor could not run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"  # BANKCHECK_ROOT, BUILD_DIR

requirements="$BANKCHECK_ROOT/ci/requirements/zizmor-requirements.txt"
version="$(sed -n 's/^zizmor==\([^ ]*\).*/\1/p' "$requirements")"
venv="$BUILD_DIR/zizmor-venv"
zizmor="$venv/bin/zizmor"
bankcheck_pinned_venv "$venv" "$requirements" "the workflows were" || exit 0

paths=("$@")
((${#paths[@]})) || paths=("$BANKCHECK_ROOT/.github/workflows")
# zizmor's exit status is that of its most severe finding: 11 informational, 12 low, 13 medium,
# 14 high; 0 none; anything else, zizmor failed.
status=0
"$zizmor" --offline --no-config --color never --no-progress "${paths[@]}" || status=$?
case "$status" in
  0 | 11) echo "bankcheck: zizmor $version: nothing above informational in ${paths[*]}" ;;
  12 | 13 | 14) echo "bankcheck: zizmor $version: findings above informational (above): fix them" >&2; exit 1 ;;
  *) echo "bankcheck: zizmor $version failed (exit $status)" >&2; exit 1 ;;
esac
