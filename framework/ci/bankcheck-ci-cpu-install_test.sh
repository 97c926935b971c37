#!/usr/bin/env bash
# bankcheck-ci-cpu is installed beside bankcheck-ci (`cmake --install` of a build with the CLI and
# the GPU side, as in the release tarball): <prefix>/bin/bankcheck-ci-cpu, its CUDA wheels' pins in
# <prefix>/share/bankcheck (the same file as the source tree's), and, run from there without
# --install-bankcheck or --bankcheck-tarball, it takes the bankcheck it is installed with (the
# prefix it names, its bankcheck --version) and finds its pins. The toolkit's wheels, the host
# packages and CMake's configure are stand-ins (no network, no compiler). CPU only.
#
#   framework/ci/bankcheck-ci-cpu-install_test.sh BUILD_DIR [CMAKE]
set -euo pipefail
(($# >= 1)) || { echo "usage: bankcheck-ci-cpu-install_test.sh BUILD_DIR [CMAKE]" >&2; exit 2; }
build="$1" cmake="${2:-cmake}"
consumer="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-ci-cpu-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; echo "FAILED: cmake --install $build" >&2; exit 1; }
prefix="$tmp/prefix"
[[ -x "$prefix/bin/bankcheck-ci" ]] || { echo "FAILED: no bin/bankcheck-ci in the install" >&2; exit 1; }
[[ -x "$prefix/bin/bankcheck-ci-cpu" ]] || fail "no executable bin/bankcheck-ci-cpu beside bin/bankcheck-ci"
cmp -s "$prefix/share/bankcheck/cuda-wheels-requirements.txt" "$consumer/cuda-wheels-requirements.txt" ||
  fail "share/bankcheck/cuda-wheels-requirements.txt is not framework/ci's"
help="$("$prefix/bin/bankcheck-ci-cpu" --help 2>&1)" || fail "bankcheck-ci-cpu --help failed: $help"
[[ "$help" == *"--bankcheck-tarball FILE"* ]] || fail "bankcheck-ci-cpu --help: $help"

# Run from the install: stand-ins for dpkg-query (every package there) and cmake (the configure
# fails, after the script has said which bankcheck it took), a toolkit already installed for its pins.
mkdir -p "$tmp/bin" "$tmp/src" "$tmp/build"
printf '#!/bin/bash\necho "install ok installed"\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/bash\necho "configure stand-in" >&2\nexit 1\n' >"$tmp/bin/cmake"
chmod +x "$tmp/bin/"*
cu13="$tmp/build/cuda-venv/lib/python3.12/site-packages/nvidia/cu13"
mkdir -p "$cu13/bin" "$cu13/nvvm/bin" "$cu13/lib"
printf '#!/bin/bash\necho "Cuda compilation tools, release 13.0"\n' >"$cu13/bin/nvcc"
for tool in bin/cuobjdump bin/nvdisasm nvvm/bin/cicc; do printf '#!/bin/bash\n' >"$cu13/$tool"; done
chmod +x "$cu13/bin/"* "$cu13/nvvm/bin/cicc"
sha256sum <"$consumer/cuda-wheels-requirements.txt" >"$tmp/build/cuda-venv/bankcheck-wheels.txt"
status=0
PATH="$tmp/bin:$PATH" "$prefix/bin/bankcheck-ci-cpu" --source "$tmp/src" --build "$tmp/build" -j 1 >"$tmp/out" 2>&1 || status=$?
((status == 1)) || fail "the installed bankcheck-ci-cpu: exit $status, expected 1 (the configure stand-in): $(cat "$tmp/out")"
grep -qF "bankcheck-ci-cpu: bankcheck: $("$prefix/bin/bankcheck" --version) in $prefix (this script's install)" "$tmp/out" ||
  fail "the installed bankcheck-ci-cpu did not take its own install: $(cat "$tmp/out")"
grep -q "installing the CUDA toolkit" "$tmp/out" && fail "the toolkit installed for its pins was installed again: $(cat "$tmp/out")"
# nvcc's profile links from lib64: the script makes it the wheels' lib.
[[ "$(readlink "$cu13/lib64")" == lib ]] || fail "no lib64 link to the wheels' lib in $cu13"

((failures == 0)) || exit 1
echo "bankcheck-ci-cpu-install_test: all passed"
