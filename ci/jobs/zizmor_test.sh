#!/usr/bin/env bash
# Tests ci/jobs/zizmor.sh on workflows written here: a pull request's title expanded into a script (a
# template injection, high) and a checkout that keeps the token in .git/config (artipacked, medium)
# fail, naming the audit; the same workflow without them passes. Run by .ci/run after ci/jobs/zizmor.sh
# (which installs zizmor; without PyPI both say so, and fail under CI=true).
set -euo pipefail
check="$(dirname "${BASH_SOURCE[0]}")/zizmor.sh"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-zizmor.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

sha=11d5960a326750d5838078e36cf38b85af677262
workflow() {
  cat <<YAML
name: check
on: [pull_request]
permissions:
  contents: read
jobs:
  check:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@$sha  # v4.4.0
        with:
          persist-credentials: false
      - name: Title
        env:
          TITLE: \${{ github.event.pull_request.title }}
        run: echo "\$TITLE"
YAML
}
workflow >"$dir/good.yml"
if [[ "$("$check" "$dir/good.yml" 2>&1)" == *"the workflows were NOT checked"* ]]; then
  echo "ci/jobs/zizmor_test.sh: zizmor could not be installed (above): NOT tested" >&2
  [[ "${CI:-}" != "true" ]] || exit 1
  exit 0
fi
expect 0 "nothing above informational" "$check" "$dir/good.yml"
workflow | sed 's/echo "\$TITLE"/echo "${{ github.event.pull_request.title }}"/' >"$dir/injection.yml"
expect 1 "template-injection" "$check" "$dir/injection.yml"
workflow | sed '/with:/d; /persist-credentials/d' >"$dir/artipacked.yml"
expect 1 "artipacked" "$check" "$dir/artipacked.yml"
expect_done ci/jobs/zizmor_test.sh
