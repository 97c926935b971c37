#!/usr/bin/env bash
# Tests ci/checks/check-workflows.sh on workflows written here: one that keeps every rule passes; each
# broken rule fails with its message; a missing file is a usage error.
set -euo pipefail
check="$(dirname "${BASH_SOURCE[0]}")/check-workflows.sh"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-workflows.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/expect.sh"

sha=11d5960a326750d5838078e36cf38b85af677262
good() {
  cat <<YAML
name: gpu
on: [pull_request]
permissions:
  contents: read
concurrency:
  group: gpu-\${{ github.ref }}
jobs:
  build:
    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@$sha  # v4.4.0
      - name: local
        uses: ./.github/actions/local
      - uses: "actions/upload-artifact@$sha" # v4.6.2
  upload:
    needs: build
    runs-on: ubuntu-24.04
    permissions:
      contents: read
      security-events: write
    steps:
      - uses: actions/download-artifact@$sha # v4.3.0
      - run: ls sarif
  call:
    permissions:
      security-events: write
    uses: <owner>/bankcheck/.github/workflows/bankcheck-suite.yml@<commit>
YAML
}
good >"$dir/good.yml"
expect 0 "" "$check" "$dir/good.yml"

good | sed "s/checkout@$sha/checkout@v4/" >"$dir/tag.yml"
expect 1 "tag.yml:11: 'uses: actions/checkout@v4' is not pinned by a full commit SHA" "$check" "$dir/tag.yml"
good | sed "s/checkout@$sha/checkout@${sha:0:12}/" >"$dir/short.yml"
expect 1 "is not pinned by a full commit SHA" "$check" "$dir/short.yml"
good | sed "s/checkout@$sha/checkout/" >"$dir/none.yml"
expect 1 "'uses: actions/checkout' names no version" "$check" "$dir/none.yml"
good | sed "s/  # v4.4.0//" >"$dir/nocomment.yml"
expect 1 "has no version in a comment" "$check" "$dir/nocomment.yml"
good | sed '/^permissions:/,/contents: read/d' >"$dir/nopermissions.yml"
expect 1 "no top-level 'permissions:'" "$check" "$dir/nopermissions.yml"
good | sed 's/^    permissions:/xx/' | sed '3s/^permissions:/#permissions:/' >"$dir/commented.yml"
expect 1 "no top-level 'permissions:'" "$check" "$dir/commented.yml"
good | sed '/^concurrency:/,/group:/d' >"$dir/noconcurrency.yml"
expect 1 "runs on a self-hosted (GPU) runner but has no 'concurrency:' group" "$check" "$dir/noconcurrency.yml"
expect 2 "no such workflow file" "$check" "$dir/missing.yml"

# The privilege split: a job that checks out (or runs a local action) never holds a write permission,
# its own or inherited from the top level.
good | sed 's/^    runs-on: \[self-hosted, gpu\]/&\n    permissions:\n      security-events: write/' >"$dir/split.yml"
expect 1 "split.yml:8: job 'build' runs the repository's code (actions/checkout@$sha) with a token that may write (security-events: write)" "$check" "$dir/split.yml"
good | sed 's/^  contents: read/  contents: write/' >"$dir/inherited.yml"
expect 1 "job 'build' runs the repository's code (actions/checkout@$sha) with a token that may write (contents: write)" "$check" "$dir/inherited.yml"
good | sed 's/^    runs-on: \[self-hosted, gpu\]/&\n    permissions: write-all/; /checkout@/d' >"$dir/local.yml"
expect 1 "job 'build' runs the repository's code (./.github/actions/local) with a token that may write (write-all)" "$check" "$dir/local.yml"
good | sed '/download-artifact@/s/.*/      - uses: actions\/checkout@'"$sha"'  # v4.4.0/' >"$dir/upload.yml"
expect 1 "job 'upload' runs the repository's code" "$check" "$dir/upload.yml"

# Publishing jobs: the OIDC token and contents: write never in one job, at most one action from outside
# GitHub's own beside either, and a (protected) environment.
publishing() {
  cat <<YAML
name: release
on:
  push:
    tags: ['v*']
permissions:
  contents: read
jobs:
  attest:
    runs-on: ubuntu-24.04
    environment: release
    permissions:
      id-token: write
      attestations: write
    steps:
      - uses: actions/download-artifact@$sha # v4.3.0
      - uses: actions/attest-build-provenance@$sha # v4.1.0
  publish:
    needs: attest
    runs-on: ubuntu-24.04
    environment: release
    permissions:
      contents: write
    steps:
      - uses: actions/download-artifact@$sha # v4.3.0
      - run: gh release create "\$TAG"
  pypi:
    needs: publish
    runs-on: ubuntu-24.04
    environment:
      name: pypi
    permissions:
      id-token: write
    steps:
      - uses: actions/download-artifact@$sha # v4.3.0
      - uses: pypa/gh-action-pypi-publish@$sha # v1.13.0
YAML
}
publishing >"$dir/publishing.yml"
expect 0 "publishing jobs" "$check" "$dir/publishing.yml"
publishing | sed '0,/^      contents: write/s//      contents: write\n      id-token: write/' >"$dir/both.yml"
expect 1 "both.yml:17: job 'publish' holds both the OIDC token (id-token: write) and contents: write: give each its own job" \
  "$check" "$dir/both.yml"
publishing | sed 's/^  contents: read/  contents: write/; /^  publish:/,/^    steps:/{/environment\|permissions\|contents/d}' \
  >"$dir/inherited-write.yml"
expect 1 "job 'publish' holds contents: write without an 'environment:'" "$check" "$dir/inherited-write.yml"
publishing | sed 's/^      - uses: actions\/download-artifact@.*/&\n      - uses: softprops\/action-gh-release@'"$sha"' # v2.6.2/' >"$dir/third.yml"
expect 1 "job 'pypi' holds id-token: write and runs 2 actions from outside GitHub's own (softprops/action-gh-release@$sha, pypa/gh-action-pypi-publish@$sha)" \
  "$check" "$dir/third.yml"
publishing | sed "s|      - run: gh release create.*|      - uses: docker://alpine@sha256:$(printf 'a%.0s' {1..64})\n      - uses: softprops/action-gh-release@$sha # v2.6.2|" >"$dir/docker.yml"
expect 1 "job 'publish' holds contents: write and runs 2 actions from outside GitHub's own" "$check" "$dir/docker.yml"
publishing | sed '/^    environment: release/d' >"$dir/noenv.yml"
expect 1 "job 'attest' holds id-token: write without an 'environment:': publish in a protected environment" \
  "$check" "$dir/noenv.yml"
publishing | sed 's/^      id-token: write/      id-token: none/; s/^      contents: write/      contents: read/' |
  sed '/environment/,/name: pypi/d' >"$dir/noright.yml"
expect 0 "publishing jobs" "$check" "$dir/noright.yml"

# A shard matrix (docs/ci.md, "Sharding"): the input `shards`, a concurrency group per shard, a merge
# job after the shards, and the one job that may write after the merge.
sharded() {
  cat <<YAML
name: sharded
on:
  workflow_call:
    inputs:
      shards:
        type: number
        default: 2
permissions:
  contents: read
jobs:
  run:
    strategy:
      matrix:
        shard: [1, 2]
    runs-on: [self-hosted, gpu]
    permissions:
      contents: read
    concurrency:
      group: suite-\${{ github.ref }}-shard-\${{ matrix.shard }}
    steps:
      - uses: actions/checkout@$sha  # v4.4.0
  merge:
    needs: run
    runs-on: ubuntu-24.04
    permissions:
      contents: read
    steps:
      - run: bankcheck-merge.sh --shards 2 shards/*/
  upload:
    needs: [run, merge]
    runs-on: ubuntu-24.04
    permissions:
      security-events: write
    steps:
      - uses: actions/download-artifact@$sha # v4.3.0
YAML
}
sharded >"$dir/sharded.yml"
expect 0 "shard matrices hold" "$check" "$dir/sharded.yml"
sharded | sed '/^      shards:/,/default: 2/d; s/^    inputs:/    inputs: {}/' >"$dir/noinput.yml"
expect 1 "noinput.yml:8: job 'run' is a shard matrix, but the reusable workflow has no input 'shards'" "$check" "$dir/noinput.yml"
sharded | sed 's/-shard-\${{ matrix.shard }}//' >"$dir/onegroup.yml"
expect 1 "job 'run' is a shard matrix without a concurrency group per shard" "$check" "$dir/onegroup.yml"
sharded | sed '/^  merge:/,$d' >"$dir/nomerge.yml"
expect 1 "job 'run' is a shard matrix that no merge job (one without a matrix) needs" "$check" "$dir/nomerge.yml"
sharded | sed 's/--shards 2 //' >"$dir/noshards.yml"
expect 1 "job 'merge' runs bankcheck-merge without --shards: a shard missing" "$check" "$dir/noshards.yml"
sharded | sed 's/needs: \[run, merge\]/needs: run/' >"$dir/early.yml"
expect 1 "job 'upload' may write but does not come after the merge job 'merge' (needs it)" "$check" "$dir/early.yml"
sharded | sed '/- run: bankcheck-merge/i\      - uses: actions/download-artifact@'"$sha"' # v4.3.0' |
  sed '0,/^      contents: read/! {0,/^      contents: read/ s/^      contents: read/      pull-requests: write/}' >"$dir/twowriters.yml"
expect 1 "may write, as 'merge' may: in a sharded workflow one job writes" "$check" "$dir/twowriters.yml"

expect_done ci/checks/check-workflows_test.sh
