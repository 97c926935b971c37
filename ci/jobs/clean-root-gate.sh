#!/usr/bin/env bash
# The CPU gate (ci/jobs/cpu-gate.sh: bankcheck-ci-cpu on examples/, a doctored line, SARIF, the job
# summary, nothing read from outside the wheels' toolkit) in a clean root filesystem, as a hosted
# runner has it: Debian's packages only (mmdebstrap from Debian's archive: the gate's host packages,
# python3), no CUDA toolkit, no /usr/local/lib64, no network while the gate runs. The CUDA toolkit
# comes from NVIDIA's wheels alone; bankcheck from its release tarball (ci/jobs/release.sh of this build
# folder, as the workflow installs the pinned release), or built from this checkout (--from-source).
# Needs root (a mount namespace, an overlay over the cached root, chroot). Cached between runs, in
# --cache (default ${XDG_CACHE_HOME:-~/.cache}/bankcheck/clean-root):
#   root-<key>/           the root filesystem, keyed by its suite, mirror and packages (never
#                         changed: each run writes to an overlay that is thrown away)
#   cuda-wheels-<key>/    the wheels of framework/ci/cuda-wheels-requirements.txt, keyed by that file
#                         (pip download --require-hashes here; the gate installs them offline)
# Prints the seconds of each part: the root, the wheels, the tarball, the gate (its first run, from
# the checked-out project to its verdict, and all of it).
#
# Usage: ci/jobs/clean-root-gate.sh [--bankcheck-tarball FILE | --from-source] [--cache DIR] [--out DIR]
#                                   [--suite NAME]
#   --bankcheck-tarball FILE   a release's tarball, SHA256SUMS beside it (default: ci/jobs/release.sh
#                              makes one from the build folder)
#   --from-source              bankcheck through FetchContent of this checkout, built in the root
#   --out DIR                  keep the gate's report, summary, SARIF and logs there
#   --suite NAME               the Debian release of the root (default: trixie, below)
# Exit status: 0 when the gate and its checks pass, 1 when not, 2 for a usage error.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ "${1:-}" == "-h" || "${1:-}" == "--help" ]] && { bankcheck_help "$0"; exit 0; }

say() { echo "bankcheck clean-root: $*"; }
fail() {
  echo "bankcheck clean-root: error: $1" >&2
  exit "${2:-1}"
}
cache="${XDG_CACHE_HOME:-$HOME/.cache}/bankcheck/clean-root" tarball="" from_source=0 out="" suite=trixie
while (($#)); do
  case "$1" in
    --bankcheck-tarball) (($# >= 2)) || fail "$1 needs a value" 2; tarball="$2"; shift 2 ;;
    --from-source) from_source=1; shift ;;
    --cache) (($# >= 2)) || fail "$1 needs a value" 2; cache="$2"; shift 2 ;;
    --out) (($# >= 2)) || fail "$1 needs a value" 2; out="$2"; shift 2 ;;
    --suite) (($# >= 2)) || fail "$1 needs a value" 2; suite="$2"; shift 2 ;;
    *) fail "unknown argument '$1' (see --help)" 2 ;;
  esac
done
[[ -z "$tarball" ]] || ((!from_source)) || fail "give --bankcheck-tarball or --from-source, not both" 2
[[ "$(id -u)" == 0 ]] || fail "needs root: it mounts an overlay and chroots into it (run it as root, or in a container)"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-clean-root.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# 1. The root filesystem: Debian 13 by default, minimal (apt and what it needs), with the packages
# bankcheck-ci-cpu installs on a hosted runner (its HOST_PACKAGES, read from the script) and the
# runner's python3 with venv. Debian 13 rather than the release builder's Debian 12: a newer
# GoogleTest (1.16), compiler (g++ 14), CMake and Python than those the tarball was built with, as a
# runner newer than the release has; the layers that include GoogleTest are compiled there, with its
# own.
[[ "$suite" =~ ^[a-z]+$ ]] || fail "--suite takes a Debian release's name (bookworm, trixie), not '$suite'" 2
mirror=http://deb.debian.org/debian
read -ra host_packages <<<"$(sed -n 's/^HOST_PACKAGES=(\(.*\))$/\1/p' "$BANKCHECK_ROOT/framework/ci/bankcheck-ci-cpu.sh")"
((${#host_packages[@]})) || fail "no HOST_PACKAGES=(...) line in framework/ci/bankcheck-ci-cpu.sh"
packages=("${host_packages[@]}" python3 python3-venv)
key="$(printf '%s\n' "$suite" "$mirror" apt "${packages[@]}" | sha256sum | cut -c1-16)"
root="$cache/root-$key"
if [[ ! -d "$root" ]]; then
  if ! command -v mmdebstrap >/dev/null 2>&1; then
    say "installing mmdebstrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
  fi
  say "making the root filesystem: Debian $suite, ${packages[*]} (mmdebstrap, $mirror)"
  rm -rf "$root.partial"
  mmdebstrap --variant=apt --mode=root --format=directory --include="$(IFS=,; echo "${packages[*]}")" \
    "$suite" "$root.partial" "$mirror" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -n 30 "$work/mmdebstrap.log"; rm -rf "$root.partial"; fail "mmdebstrap failed (above)"; }
  mv "$root.partial" "$root"
  say "root filesystem made in $((SECONDS - start)) s: $root"
else
  say "root filesystem: cached, $root"
fi
# Clean: no CUDA toolkit, nothing of one where ld or CMake look by default.
for path in usr/local/cuda usr/local/lib64 opt/nvidia; do
  [[ ! -e "$root/$path" ]] || fail "the root filesystem has /$path: it is not clean (remove $root)"
done
found="$(find "$root" -xdev \( -name 'libcudart*' -o -name 'libcudadevrt*' -o -name nvcc -o -name 'cuda_runtime.h' \) -print -quit)"
[[ -z "$found" ]] || fail "the root filesystem holds ${found#"$root"}, a CUDA file: it is not clean (remove $root)"

# 2. The CUDA wheels, by their pins and hashes, downloaded here (the gate in the root has no network).
part=$SECONDS
requirements="$BANKCHECK_ROOT/framework/ci/cuda-wheels-requirements.txt"
wheels="$cache/cuda-wheels-$(sha256sum <"$requirements" | cut -c1-16)"
if [[ ! -d "$wheels" ]]; then
  python3 -m pip --version >/dev/null 2>&1 || fail "no pip for python3 here to download the CUDA wheels with"
  rm -rf "$wheels.partial"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary :all: \
    --retries 2 --timeout 60 -d "$wheels.partial" -r "$requirements" || { rm -rf "$wheels.partial"; fail "pip download failed (above)"; }
  mv "$wheels.partial" "$wheels"
  say "CUDA wheels downloaded in $((SECONDS - part)) s: $wheels"
else
  say "CUDA wheels: cached, $wheels"
fi

# 3. bankcheck's release tarball: the one given, or made from this build folder as a release makes it.
part=$SECONDS
gate_args=(--toolkit /tmp/cuda-venv --out /out)
dist="$work/dist"
if ((from_source)); then
  say "bankcheck: FetchContent of this checkout, built in the root"
else
  mkdir -p "$dist"
  if [[ -n "$tarball" ]]; then
    [[ -f "$tarball" && -f "$(dirname "$tarball")/SHA256SUMS" ]] || fail "no $tarball with SHA256SUMS beside it" 2
    cp "$tarball" "$(dirname "$tarball")/SHA256SUMS" "$dist/"
  else
    version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)"
    [[ -n "$version" ]] || fail "no build of bankcheck in $BUILD_DIR to make the release tarball from (ci/test.sh first)"
    "$BANKCHECK_ROOT/ci/jobs/release.sh" --tag "v$version" --out "$dist" >"$work/release.log" 2>&1 ||
      { cat "$work/release.log"; fail "ci/jobs/release.sh failed (above)"; }
  fi
  tarball="$(cd "$dist" && echo bankcheck-*.tar.gz)"
  [[ -f "$dist/$tarball" ]] || fail "no bankcheck-*.tar.gz in $dist"
  gate_args+=(--bankcheck-tarball "/dist/$tarball")
  say "bankcheck: $tarball ($((SECONDS - part)) s)"
fi

# 4. The gate, in an overlay over the cached root: this checkout read-only at /bankcheck (its build
# folder hidden: nothing of this machine's toolkit), the wheels at /wheels, the tarball at /dist; no
# network (pip installs from /wheels).
part=$SECONDS
mkdir -p "$work/upper" "$work/overlay" "$work/root" "$work/out"
status=0
cat >"$work/inside.sh" <<'INSIDE'
set -euo pipefail
root="$1" work="$2" checkout="$3" wheels="$4" jobs="$5"
shift 5
mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/upper,workdir=$work/overlay" "$work/root"
new="$work/root"
mount -t proc proc "$new/proc"
mount --rbind /dev "$new/dev"
mkdir -p "$new/bankcheck" "$new/wheels" "$new/dist" "$new/out"
mount --bind "$checkout" "$new/bankcheck"
mount -o remount,bind,ro "$new/bankcheck"
[[ ! -d "$new/bankcheck/build" ]] || mount -t tmpfs -o ro tmpfs "$new/bankcheck/build"
mount --bind "$wheels" "$new/wheels"
mount -o remount,bind,ro "$new/wheels"
[[ ! -d "$work/dist" ]] || mount --bind "$work/dist" "$new/dist"
mount --bind "$work/out" "$new/out"
exec chroot "$new" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
  PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels BANKCHECK_BUILD_DIR=/tmp/bankcheck-build BANKCHECK_JOBS="$jobs" \
  /bankcheck/ci/jobs/cpu-gate.sh "$@"
INSIDE
unshare --mount --net --propagation private bash "$work/inside.sh" "$root" "$work" "$BANKCHECK_ROOT" "$wheels" "$JOBS" \
  "${gate_args[@]}" </dev/null || status=$?
say "the gate in the clean root: $((SECONDS - part)) s (exit $status)"
if [[ -n "$out" ]]; then
  mkdir -p "$out"
  cp -r "$work/out/." "$out/"
  say "its report, summary, SARIF and log: $out"
fi
((status == 0)) || fail "the CPU gate failed in the clean root (above)"
say "passed in $((SECONDS - start)) s"
